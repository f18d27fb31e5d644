"""Hand-written wire JSON for A2A 0.2, 0.3 and 1.0, after the spec's examples (a2a.md §1)."""

CARD_V02 = {
    "name": "Weather", "description": "Forecasts", "version": "1.2.0",
    "url": "https://agents.example.com/weather",
    "provider": {"organization": "Example", "url": "https://example.com"},
    "capabilities": {"streaming": False, "pushNotifications": False,
                     "stateTransitionHistory": True},
    "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "fc", "name": "Forecast", "description": "Daily forecast",
                "tags": ["weather"], "examples": ["rain in Paris?"]}],
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
    "security": [{"bearer": []}],
}

CARD_V03 = {
    "protocolVersion": "0.3.0", "name": "Travel", "description": "Books trips",
    "version": "0.9.1", "url": "https://travel.example.com/a2a/jsonrpc",
    "preferredTransport": "JSONRPC",
    "additionalInterfaces": [
        {"url": "https://travel.example.com/a2a/jsonrpc", "transport": "JSONRPC"},
        {"url": "https://travel.example.com/a2a/rest", "transport": "HTTP+JSON"}],
    "capabilities": {"streaming": True, "pushNotifications": True},
    "defaultInputModes": ["text/plain", "application/json"],
    "defaultOutputModes": ["application/json"],
    "skills": [{"id": "book", "name": "Book", "description": "Books flights",
                "tags": ["travel"], "inputModes": ["application/json"]}],
    "supportsAuthenticatedExtendedCard": True,
    "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
}

CARD_V10 = {
    "name": "Retail", "description": "Customer service", "version": "2.0.0",
    "supportedInterfaces": [
        {"url": "https://retail.example.com/rest", "protocolBinding": "HTTP+JSON",
         "protocolVersion": "1.0"},
        {"url": "https://retail.example.com/rpc", "protocolBinding": "JSONRPC",
         "protocolVersion": "1.0", "tenant": "acme"},
        {"url": "https://retail.example.com/rpc", "protocolBinding": "JSONRPC",
         "protocolVersion": "0.3"}],
    "provider": {"organization": "Retail Inc", "url": "https://retail.example.com"},
    "capabilities": {"streaming": True, "extendedAgentCard": False,
                     "extensions": [{"uri": "https://ext.example/x", "required": False}]},
    "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "orders", "name": "Orders", "description": "Order help",
                "tags": ["retail", "orders"]}],
    "securitySchemes": {"oauth": {"oauth2SecurityScheme": {"flows": {
        "clientCredentials": {"tokenUrl": "https://retail.example.com/token", "scopes": {}}}}}},
    "securityRequirements": [{"schemes": {"oauth": {"list": ["read"]}}}],
}

MESSAGE_V03 = {
    "kind": "message", "messageId": "m1", "role": "agent", "contextId": "c1", "taskId": "t1",
    "parts": [{"kind": "text", "text": "hi"},
              {"kind": "file", "file": {"uri": "https://x/a.pdf", "mimeType": "application/pdf",
                                        "name": "a.pdf"}},
              {"kind": "file", "file": {"bytes": "aGk=", "mimeType": "image/png"}},
              {"kind": "data", "data": {"k": "v"}}],
}

MESSAGE_V10 = {
    "messageId": "m1", "role": "ROLE_AGENT", "contextId": "c1", "taskId": "t1",
    "referenceTaskIds": [], "extensions": [],
    "parts": [{"text": "hi"},
              {"url": "https://x/a.pdf", "filename": "a.pdf", "mediaType": "application/pdf"},
              {"raw": "aGk=", "mediaType": "image/png"},
              {"data": {"k": "v"}, "mediaType": "application/json"}],
}

TASK_V03 = {
    "kind": "task", "id": "t1", "contextId": "c1",
    "status": {"state": "input-required", "timestamp": "2025-07-30T10:00:00Z",
               "message": {"kind": "message", "messageId": "m2", "role": "agent",
                           "parts": [{"kind": "text", "text": "Which date?"}]}},
    "artifacts": [{"artifactId": "a1", "name": "plan",
                   "parts": [{"kind": "data", "data": {"step": 1}}]}],
    "history": [MESSAGE_V03 | {"role": "user"}],
}

TASK_V10 = {
    "id": "t1", "contextId": "c1",
    "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2026-11-22T02:55:45.438Z"},
    "artifacts": [{"artifactId": "a1", "name": "answer", "parts": [{"text": "echo hi"}]}],
    "history": [{"messageId": "m0", "contextId": "c1", "taskId": "t1", "role": "ROLE_USER",
                 "parts": [{"text": "hi"}]}],
}

SEND_RESULT_V10 = {"task": TASK_V10}
STATUS_UPDATE_V10 = {"statusUpdate": {"taskId": "t1", "contextId": "c1",
                                      "status": {"state": "TASK_STATE_WORKING"}}}
ARTIFACT_UPDATE_V03 = {"kind": "artifact-update", "taskId": "t1", "contextId": "c1",
                       "append": True, "lastChunk": False,
                       "artifact": {"artifactId": "a1", "parts": [{"kind": "text", "text": "x"}]}}

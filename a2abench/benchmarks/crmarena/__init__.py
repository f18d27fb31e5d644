"""CRMArena and CRMArena-Pro over A2A, with an offline Salesforce sandbox."""

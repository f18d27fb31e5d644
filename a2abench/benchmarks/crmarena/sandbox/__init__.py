"""The offline Salesforce: SOQL and SOSL over CRMArena's SQLite org dumps.

    from a2abench.benchmarks.crmarena.sandbox import OrgSandbox
    with OrgSandbox.open(Path("crmarenapro_b2b_data.db")) as org:
        org.observe("SELECT Id, Name FROM Account LIMIT 2")
"""

from .engine import OrgSandbox, QueryResult
from .errors import SalesforceError
from .schema import OrgSchema

__all__ = ["OrgSandbox", "OrgSchema", "QueryResult", "SalesforceError"]

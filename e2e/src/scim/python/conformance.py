"""Runs scim2-tester (python-scim, Apache-2.0) against one tenant's SCIM 2.0 service provider.

Usage: conformance.py BASE_URL BEARER_TOKEN RESULT_JSON

BASE_URL is the tenant's SCIM base URL (https://.../auth/{tenantId}/scim/v2). Every check result is written to
RESULT_JSON (status, title, reason, tags, resource type) with a summary by status; nothing is judged here: the
test that runs this script decides what the statuses must be. Exit status 0 unless the checker itself could not run.
"""

import json
import sys
from collections import Counter

from httpx2 import Client
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import check_server


def main() -> int:
    base_url, token, out = sys.argv[1], sys.argv[2], sys.argv[3]
    http = Client(
        base_url=base_url,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
        # The test's local server has a self-signed certificate (or plain HTTP); nothing leaves loopback.
        verify=False,
    )
    client = SyncSCIMClient(http)
    results = check_server(client, raise_exceptions=False)
    rows = [
        {
            "status": r.status.name,
            "title": r.title,
            "reason": r.reason,
            "tags": sorted(r.tags or []),
            "resourceType": r.resource_type,
        }
        for r in results
    ]
    summary = dict(Counter(row["status"] for row in rows))
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"tool": "scim2-tester", "baseUrl": base_url, "summary": summary, "results": rows}, f, indent=2)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

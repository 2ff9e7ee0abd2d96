"""HTTP plumbing shared by every app: IDs, errors, authentication, roles, pagination,
idempotency, expansion, versioning, rate limits and the base viewset.

It lives in `jobcost/api/` because the job-cost app owns the API surface; `audit` and
`webhooks` import from here and never the other way round.
"""

"""The job-cost domain: accounts, parties, projects, budgets, commitments and the /v1 API."""

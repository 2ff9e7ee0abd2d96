"""Reports: the WIP schedule, job cost, AP aging and retainage, each as of the end of a day
(docs/reports.md). Each report is a `ReportSpec` (its columns, totals and row key) and a
function of the reader's `Scope` that returns a `Report` in a bounded number of queries."""

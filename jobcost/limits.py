"""The documented maximum length of every array in a request body (docs/operations/limits.md).

Chosen for what a real job needs, with room to spare: a G703 schedule of values runs to a few
hundred rows, a change order or an invoice is coded to at most a few hundred cost codes, a
daily log lists the crews of one day. Past a maximum the request is 400 `parameter_invalid`
with `param` naming the array, before any element is read, and the OpenAPI schema carries it as
`maxItems`. Each bound is also what keeps create and approve of a maximum-size object within a
second (bulk writes, see `tests/jobcost/api/test_array_bounds.py`).
"""

import datetime

# Change-order `lines` (create and PATCH): one per cost code touched.
CHANGE_ORDER_LINES_MAX = 500
# Invoice `lines` (coding): one per cost code billed.
INVOICE_LINES_MAX = 500
# Pay-app PATCH `lines` entries, one per G703 row entered. A pay app has one row per cost code
# with a scheduled value plus one per approved owner change order, a few hundred on a real
# job; a longer pay app is entered in more than one PATCH (rows not named keep their values).
PAY_APP_LINE_ENTRIES_MAX = 1000
# Daily-log `manpower` rows: one per trade and crew on site that day.
MANPOWER_ROWS_MAX = 200
# Webhook endpoint `events`: the catalogue has 35 types, plus `*`.
WEBHOOK_EVENTS_MAX = 50

# Text the owner's side keeps: the architect's reason for certifying less than applied for,
# and a check or wire number (the column holds 100 characters).
CERTIFICATION_NOTE_MAX = 2000
PAYMENT_REFERENCE_MAX = 100

# Every business date the API takes (invoice, due, period, receipt, certification, log dates):
# a day a construction job's books can hold. Outside it a date is a typing slip (a year 0226,
# 9999-12-31 as "never"), 400 `parameter_invalid` with the range in the message.
BUSINESS_DATE_MIN = datetime.date(1970, 1, 1)
BUSINESS_DATE_MAX = datetime.date(2099, 12, 31)

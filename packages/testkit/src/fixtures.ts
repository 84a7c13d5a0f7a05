/**
 * An error log as a Python service writes it: a message, then a traceback raised while handling another (a chained
 * exception). The log scanner makes an error of it with the chain (docs/api.md, "Errors made from logs").
 */
export const PYTHON_TRACEBACK = `order 42 could not be processed
Traceback (most recent call last):
  File "/srv/app/orders.py", line 10, in lookup_customer
    return customers[order["customer_id"]]
KeyError: 7

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/main.py", line 8, in <module>
    process('{"customer_id": 7}', {})
  File "/srv/app/orders.py", line 12, in lookup_customer
    raise LookupError(f"unknown customer {order['customer_id']}")
LookupError: unknown customer 7`;

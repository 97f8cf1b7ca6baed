"""The API's request pipeline: the WSGI handler and middleware, the base API view (authentication,
rate limit, JSON-P, permissions), parsing, pagination, errors, wire versions, routing and the OpenAPI
document.
"""

"""GET /orders/, GET and PATCH /orders/{id}/ (spec §4.9, §5, §7; docs/decisions.md: Orders)."""
import re

import pytest
from rest_framework.test import APIClient

from tests.support.api import assert_error
from apps.orders.models import Order
from apps.orders.tests.factories import OrderFactory

pytestmark = pytest.mark.django_db

WIRE_KEYS = {
    "id", "thing_id", "amount", "add_date", "modified_date", "charges", "fees", "validated_shipping_address",
    "is_shipped", "status", "note",
}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$")
S = Order.Status


def url(order) -> str:
    return f"/orders/{order.pk}/"


# --- GET: who sees which order ---------------------------------------------------------------------


def test_the_buyers_token_for_the_owning_app_gets_the_order_in_the_wire_shape(buyer_api, order):
    response = buyer_api.get(url(order))
    assert response.status_code == 200
    body = response.json()
    assert set(body) == WIRE_KEYS
    assert body["id"] == str(order.pk) and body["thing_id"] == str(order.thing_id)
    assert all(isinstance(v, str) for k, v in body.items() if k != "charges")
    assert all(isinstance(v, str) for c in body["charges"] for v in c.values())
    assert DATE.match(body["add_date"]) and DATE.match(body["modified_date"])
    assert (body["amount"], body["status"], body["is_shipped"]) == ("19.99", "paid", "false")


def test_the_apps_read_only_token_gets_the_order(readonly_api, order):
    assert readonly_api.get(url(order)).json()["id"] == str(order.pk)


def test_the_app_owners_token_gets_the_order(seller_api, order):
    assert seller_api.get(url(order)).status_code == 200


def test_another_apps_read_only_token_gets_404(other_app, order):
    from apps.developers.services import application_issue_readonly_token
    from tests.support.api import bearer_client

    assert_error(bearer_client(application_issue_readonly_token(application=other_app)).get(url(order)), 404)


def test_the_path_works_without_its_trailing_slash(buyer_api, order):
    assert buyer_api.get(f"/orders/{order.pk}").status_code == 200
    assert buyer_api.get("/orders").status_code == 200


def test_the_token_may_come_from_the_query_string(buyer_api, order):
    assert APIClient().get(url(order), {"access_token": buyer_api.token.token}).status_code == 200


# --- GET /orders/: the list ------------------------------------------------------------------------


def test_a_users_token_lists_only_their_orders_with_the_app_newest_first(buyer_api, buyer, app, other_app):
    older = OrderFactory(buyer=buyer, application=app)
    newer = OrderFactory(buyer=buyer, application=app)
    OrderFactory(buyer=buyer, application=other_app)
    OrderFactory(application=app)  # another buyer
    response = buyer_api.get("/orders/")
    assert response.status_code == 200
    assert [o["id"] for o in response.json()] == [str(newer.pk), str(older.pk)]


def test_the_read_only_token_lists_all_of_the_apps_orders(readonly_api, app, other_app):
    mine = OrderFactory.create_batch(2, application=app)
    OrderFactory(application=other_app)
    assert {o["id"] for o in readonly_api.get("/orders/").json()} == {str(o.pk) for o in mine}


def test_the_list_is_paginated_with_link_headers(buyer_api, buyer, app):
    OrderFactory.create_batch(3, buyer=buyer, application=app)
    response = buyer_api.get("/orders/", {"per_page": 2})
    assert len(response.json()) == 2
    assert 'rel="next"' in response["Link"]


@pytest.mark.parametrize("rows", [1, 30])
def test_list_query_count_does_not_grow(buyer_api, buyer, app, rows, django_assert_num_queries):
    OrderFactory.create_batch(rows, buyer=buyer, application=app)
    buyer_api.get("/orders/")  # warm-up: the once-per-5-minutes last_active write
    # token with user and app; COUNT; SELECT orders
    with django_assert_num_queries(3):
        assert len(buyer_api.get("/orders/").json()) == rows


@pytest.mark.parametrize("rows", [1, 30])
def test_read_only_list_query_count_does_not_grow(readonly_api, app, rows, django_assert_num_queries):
    OrderFactory.create_batch(rows, application=app)
    # token with app; COUNT; SELECT orders
    with django_assert_num_queries(3):
        assert len(readonly_api.get("/orders/").json()) == rows


def test_detail_query_count(buyer_api, order, django_assert_num_queries):
    buyer_api.get("/orders/")
    # token with user and app; SELECT the order
    with django_assert_num_queries(2):
        assert buyer_api.get(url(order)).status_code == 200


# --- PATCH: who may change an order ----------------------------------------------------------------


def test_the_read_only_token_cannot_patch(readonly_api, order):
    # Its scope (orders:read) has no `write`: docs/decisions.md, Scopes (round 3).
    response = readonly_api.patch(url(order), {"note": "x"}, format="json")
    assert_error(response, 403, "INSUFFICIENT_SCOPE")
    assert response["WWW-Authenticate"] == 'Bearer error="insufficient_scope", scope="write"'
    order.refresh_from_db()
    assert order.note == ""


def test_the_buyers_token_cannot_patch_its_own_order(buyer_api, order):
    assert_error(buyer_api.patch(url(order), {"status": "shipped"}, format="json"), 403, "FORBIDDEN")


def test_patch_by_a_token_of_another_app_is_404(token_client, seller, other_app, order):
    assert_error(token_client(seller, other_app).patch(url(order), {"note": "x"}, format="json"), 404)


def test_patch_of_an_unknown_order_is_404(seller_api):
    assert_error(seller_api.patch("/orders/999999/", {"note": "x"}, format="json"), 404)


def test_patch_without_an_id_is_not_allowed(seller_api):
    assert seller_api.patch("/orders/", {"note": "x"}, format="json").status_code == 405


# --- PATCH: fields and transitions -----------------------------------------------------------------


def test_the_owner_sets_the_note_and_is_shipped(seller_api, order, events):
    response = seller_api.patch(url(order), {"note": "Tracking 1Z999", "is_shipped": True}, format="json")
    assert response.status_code == 200
    assert (response.json()["note"], response.json()["is_shipped"]) == ("Tracking 1Z999", "true")
    order.refresh_from_db()
    assert (order.note, order.is_shipped, order.status) == ("Tracking 1Z999", True, S.PAID)
    assert events == []


def test_a_json_body_labelled_as_a_form_is_read_as_json(seller_api, order):
    response = seller_api.generic(
        "PATCH", url(order), '{"note": "hi"}', content_type="application/x-www-form-urlencoded"
    )
    assert response.json()["note"] == "hi"


def test_shipping_a_paid_order_sets_is_shipped(seller_api, order):
    body = seller_api.patch(url(order), {"status": "shipped"}, format="json").json()
    assert (body["status"], body["is_shipped"]) == ("shipped", "true")


def test_cancelling_a_paid_order_refunds_it_without_an_event(seller_api, order, events):
    response = seller_api.patch(url(order), {"status": "cancelled"}, format="json")
    assert response.json()["status"] == "cancelled"
    order.refresh_from_db()
    assert order.refund_reference == f"test_re_{order.pk}" and order.refunded_at is not None
    assert events == []


def test_granting_a_requested_refund_refunds_and_emits_order_refunded(seller_api, buyer, app, events):
    order = OrderFactory(buyer=buyer, application=app, status=S.REFUND_REQUESTED)
    body = seller_api.patch(url(order), {"status": "refunded"}, format="json").json()
    assert body["status"] == "refunded"
    order.refresh_from_db()
    assert order.refund_reference == f"test_re_{order.pk}"
    assert [(e.event, e.status_in_db, e.payload) for e in events] == [
        ("order_refunded", "refunded", {"order": body})
    ]


def test_repeating_a_transition_is_a_no_op(seller_api, buyer, app, events):
    order = OrderFactory(buyer=buyer, application=app, status=S.REFUNDED, refund_reference="test_re_first")
    before = order.modified_date
    assert seller_api.patch(url(order), {"status": "refunded"}, format="json").status_code == 200
    order.refresh_from_db()
    assert (order.refund_reference, order.modified_date) == ("test_re_first", before)
    assert events == []


@pytest.mark.parametrize(
    "status,target",
    [(S.PAID, "refunded"), (S.SHIPPED, "cancelled"), (S.REFUNDED, "shipped"), (S.PENDING, "shipped")],
)
def test_a_transition_the_state_does_not_allow_is_400_with_the_reason(seller_api, buyer, app, status, target):
    order = OrderFactory(buyer=buyer, application=app, status=status)
    response = seller_api.patch(url(order), {"status": target}, format="json")
    body = assert_error(response, 400, "STATUS_NOT_ALLOWED")
    assert body["errors"] == {"status": [f"An order cannot go from {status} to {target}."]}
    order.refresh_from_db()
    assert order.status == status


def test_a_refused_transition_changes_no_other_field(seller_api, buyer, app):
    order = OrderFactory(buyer=buyer, application=app, status=S.REFUNDED)
    seller_api.patch(url(order), {"status": "shipped", "note": "x"}, format="json")
    order.refresh_from_db()
    assert order.note == ""


def test_a_declined_refund_is_400_and_keeps_the_request(seller_api, buyer, app, declining_backend, events):
    order = OrderFactory(buyer=buyer, application=app, status=S.REFUND_REQUESTED)
    response = seller_api.patch(url(order), {"status": "refunded"}, format="json")
    body = assert_error(response, 400, "REFUND_DECLINED")
    assert "refund window closed" in body["error"]
    order.refresh_from_db()
    assert order.status == S.REFUND_REQUESTED and events == []


@pytest.mark.parametrize(
    "body,field",
    [
        ({"is_shipped": "maybe"}, "is_shipped"),
        ({"is_shipped": 1}, "is_shipped"),
        ({"note": "x" * 2001}, "note"),
        ({"note": 42}, "note"),
        # Not "paid": that is this order's status, which a round-trip PATCH sends back unchanged (ignored).
        ({"status": "pending"}, "status"),
        ({"status": "lost"}, "status"),
    ],
)
def test_bad_input_is_400_naming_the_field(seller_api, order, body, field):
    response = assert_error(seller_api.patch(url(order), body, format="json"), 400, "VALIDATION_FAILED")
    assert field in response["errors"]


def test_a_shipped_order_cannot_be_unflagged(seller_api, buyer, app):
    order = OrderFactory(buyer=buyer, application=app, status=S.SHIPPED, is_shipped=True)
    body = assert_error(seller_api.patch(url(order), {"is_shipped": False}, format="json"), 400)
    assert "is_shipped" in body["errors"]


def test_an_empty_body_changes_nothing(seller_api, order):
    assert seller_api.generic("PATCH", url(order), "").json()["status"] == "paid"


def test_a_granted_refund_writes_the_real_outbox_row_with_the_response_body(seller_api, buyer, app):
    """Unpatched: apps.webhooks records the event the PATCH emits."""
    from apps.webhooks.models import Delivery

    app.webhook_url = "https://hooks.example.com/thingyard"
    app.save(update_fields=["webhook_url"])
    order = OrderFactory(buyer=buyer, application=app, status=S.REFUND_REQUESTED)
    body = seller_api.patch(url(order), {"status": "refunded"}, format="json").json()
    delivery = Delivery.objects.get()
    assert (delivery.event, delivery.payload) == ("order_refunded", {"event": "order_refunded", "order": body})

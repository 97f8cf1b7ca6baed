"""Site pages of orders (session login, CSRF): the checkout the iframe SDK's `address` and `payment`
dialogs load (spec §4.11), and the buyer's orders page with refund requests.

The checkout is stateless: the app's query string (thing, app, amount, charges) stays in the URL, the
address travels in hidden fields to the confirm step, and every POST validates everything again.
"""
import logging
import secrets

from django.contrib import messages
from django.core.cache import caches
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_http_methods, require_POST

from apps.core.domain.exceptions import DomainError, NotFound
from apps.orders import rules, selectors, services
from apps.orders.forms import AddressForm, CheckoutParamsForm, RefundRequestForm

log = logging.getLogger(__name__)
ORDERS_PER_PAGE = 30
SUBMISSION_SECONDS = 3600


def _first_submission(request) -> bool:
    """A double-clicked Pay button must not charge twice: each confirm page's nonce pays once."""
    nonce = request.POST.get("nonce", "")
    if not nonce:
        return False
    try:
        # The `state` alias: a nonce claimed before an upgrade stays claimed after it (settings.cache_aliases).
        return caches["state"].add(f"orders:checkout:{request.user.pk}:{nonce}", 1, timeout=SUBMISSION_SECONDS)
    except Exception as exc:  # Redis down: take the payment rather than refuse every buyer
        log.warning("Cannot claim a checkout submission in the cache: %s", exc)
        return True


def _result(request, result: dict, *, message: str = "", status: int = 200):
    """The dialog's last page: `result` is what the SDK host hands the app's callback."""
    context = {"result": result, "message": message}
    return render(request, "orders/checkout_result.html", context, status=status)


def _checkout_error(request, message: str, *, status: int):
    return render(request, "orders/checkout_error.html", {"message": message}, status=status)


# The SDK host (our own origin) shows the dialogs in a frame; no other site may frame a payment page.
@xframe_options_sameorigin
@login_required
@require_http_methods(["GET", "POST"])
def checkout(request):
    """/orders/checkout?thing_id=&client_id=&amount=&charges=: address (step 1), confirm and pay (step 2)."""
    params = CheckoutParamsForm(request.GET)
    if not params.is_valid():
        reasons = [str(m) for messages_ in params.errors.values() for m in messages_]
        return _checkout_error(request, " ".join(reasons), status=400)
    data = params.cleaned_data
    try:
        thing = selectors.checkout_thing_get(data["thing_id"], buyer=request.user)
        application = selectors.checkout_application_get(data["client_id"])
    except NotFound:
        return _checkout_error(request, "This Thing or application does not exist.", status=404)
    authorized = selectors.application_is_authorized_by(application=application, user=request.user)
    reasons = rules.order_place_blockers(
        buyer=request.user, thing=thing, application=application, is_authorized=authorized
    )
    if reasons:
        return _checkout_error(request, " ".join(reasons), status=400)
    context = {
        "thing": thing, "application": application, "amount": data["amount"], "charges": data["charges"]
    }
    if request.method == "GET":
        return render(request, "orders/checkout.html", {**context, "step": "address", "form": AddressForm()})
    form = AddressForm(request.POST)
    if not form.is_valid():
        context.update(step="address", form=form)
        return render(request, "orders/checkout.html", context, status=400)
    context.update(
        step="confirm",
        form=form,
        address=rules.order_address_text(**form.cleaned_data),
        nonce=secrets.token_urlsafe(16),
    )
    if request.POST.get("step") != "pay":
        return render(request, "orders/checkout.html", context)
    if not _first_submission(request):
        return _checkout_error(request, "This order was already submitted; see your orders page.", status=409)
    try:
        order = services.order_place(
            buyer=request.user,
            thing=thing,
            application=application,
            amount=data["amount"],
            charges=data["charges"],
            address=form.cleaned_data,
        )
    except DomainError as exc:
        return render(request, "orders/checkout.html", {**context, "error": exc.message}, status=400)
    return _result(request, {"status": "ok", "order_id": order.pk}, message="Thank you: your order is paid.")


@xframe_options_sameorigin
@login_required
def checkout_cancel(request):
    """The dialog's cancel link (spec §4.11: `status` is `cancelled` and nothing is selected)."""
    return _result(request, {"status": "cancelled"}, message="Checkout cancelled.")


@login_required
def account_orders(request):
    """/account/orders: the buyer's orders, newest first, with a refund request form where allowed."""
    page = Paginator(selectors.order_list_for_buyer(buyer=request.user), ORDERS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    now = timezone.now()
    rows = [{"order": o, "can_refund": rules.order_can_request_refund(o, now=now)} for o in page]
    context = {"page": page, "rows": rows, "form": RefundRequestForm()}
    return render(request, "orders/account_orders.html", context)


@login_required
@require_POST
def order_refund_request(request, order_id):
    try:
        order = selectors.order_get_for_buyer(order_id, buyer=request.user)
    except NotFound:
        raise Http404 from None
    form = RefundRequestForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Say why you want a refund (at most 2000 characters).")
        return redirect("account-orders")
    try:
        services.order_refund_request(order=order, buyer=request.user, reason=form.cleaned_data["reason"])
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Refund requested for order {order.pk}.")
    return redirect("account-orders")

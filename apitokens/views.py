"""The signed-in user's API tokens: the list, a new one (its secret shown once) and revoking."""

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views import View

from . import services
from .forms import TokenForm
from .models import ApiToken


class TokensView(LoginRequiredMixin, View):
    template_name = "apitokens/tokens.html"

    def page(self, request, form, *, secret=None, status=200):
        tokens = ApiToken.objects.filter(user=request.user).order_by("-created")
        context = {"tokens": tokens, "form": form, "secret": secret}
        return render(request, self.template_name, context, status=status)

    def get(self, request):
        return self.page(request, TokenForm(user=request.user))

    def post(self, request):
        form = TokenForm(request.POST, user=request.user)
        if not form.is_valid():
            return self.page(request, form, status=400)
        token, secret = services.token_create(user=request.user, **form.cleaned_data)
        # Answered here, not after a redirect: the secret is never stored, not even in a session,
        # nor kept by a browser's or a proxy's cache.
        page = self.page(request, TokenForm(user=request.user), secret=(token, secret), status=201)
        add_never_cache_headers(page)
        return page


class RevokeView(LoginRequiredMixin, View):
    def post(self, request):
        if not services.token_revoke(user=request.user, digest=request.POST.get("token", "")):
            raise Http404  # not one of yours (or already revoked)
        messages.success(request, _("Token revoked: it is refused from now on."))
        return redirect("apitokens:tokens")

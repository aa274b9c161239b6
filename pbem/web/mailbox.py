"""The local mailbox (`/mailbox`): a mail client in the browser for a newcomer's
`pbem serve`, where no relay sends the mail anywhere.

Without `PBEM_SMTP_RELAY`, every mail pbem sends is kept in the maildir, and a new user
has nothing to read it or answer it with. The mailbox shows every address's mail as a
mail client shows it (the HTML part with its picture, the text part) and has a form to
write a new mail or reply to one: a real reply (Reply-To, In-Reply-To, References, the
quoted text) handed to pbem's own SMTP listener, the path of any mail
(pbem.web.mailbox_letters).

It reads everyone's mail and writes as anyone, so it exists only where nobody else can
reach it: `pbem serve` registers it only when no relay is set and the web listens on a
loopback address (`available`), and every request must come from loopback and name a
loopback host (a page elsewhere cannot reach it by a name that resolves to 127.0.0.1).
The form carries a CSRF token as the seat pages' forms do (pbem.web.seat_page). Pages
are never cached, may be framed only by the mailbox itself, and load nothing from
elsewhere: the HTML part is shown in a sandboxed frame, scripts off.
"""

from __future__ import annotations

import smtplib

from flask import (Blueprint, Response, abort, current_app, redirect, render_template, request,
                   url_for)

from pbem.config import Config, host_port, is_loopback
from pbem.web.operator_proof import confirmed_loopback
from pbem.web import mailbox_letters as letters
from pbem.web.archive import refused
from pbem.web.seat_page import csrf_refusal, csrf_token, form_cookie, with_form_cookie

mailbox = Blueprint("mailbox", __name__)
mailbox.register_error_handler(400, refused)
mailbox.register_error_handler(404, refused)
FORM = "mailbox"  # what the CSRF token is made for (a seat page's is its token)
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex, nofollow",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "SAMEORIGIN",
    "Content-Security-Policy": "default-src 'none'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; frame-src 'self'; form-action 'self'; "
                               "frame-ancestors 'self'; base-uri 'none'",
}


def available(config: Config) -> str | None:
    """Why the mailbox is off, or None when `pbem serve` may show it."""
    if config.smtp_relay:
        return "mail goes out through PBEM_SMTP_RELAY"
    if not is_loopback(host_port(config.http, 8000)[0]):
        return f"the web listens on {config.http}, not on loopback only"
    return None


def config() -> Config:
    return current_app.config["PBEM"]


@mailbox.before_request
def loopback_only():
    """404 for a request not from loopback or not to a loopback name, and for a server
    whose settings no longer allow it (a relay set since)."""
    host = request.host.rsplit(":", 1)[0].strip("[]") if request.host else ""
    # from loopback, and not a proxy's forwarding of the world (pbem.web.operator_proof)
    if (available(config()) is not None or not confirmed_loopback(request.environ)
            or not is_loopback(host)):
        abort(404)


@mailbox.after_request
def private(response: Response) -> Response:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response


@mailbox.route("/mailbox")
def index():
    kept = letters.letters(config())
    return _page("web/mailbox.html", kept=kept, addresses=letters.addresses(kept),
                 address=None, shown=[])


@mailbox.route("/mailbox/to/<address>")
def inbox(address: str):
    address = address.lower()
    kept = letters.letters(config())
    shown = [letter for letter in kept if address in letter.to][::-1]  # newest first
    return _page("web/mailbox.html", kept=kept, addresses=letters.addresses(kept),
                 address=address, shown=shown, sent=request.args.get("sent") == "1")


@mailbox.route("/mailbox/to/<address>/<key>")
def letter(address: str, key: str):
    message = _message(key)
    draft = letters.reply_draft(message, address.lower())
    return _page("web/mailbox_letter.html", address=address.lower(), key=key,
                 message=message, text=letters.text_of(message),
                 has_html=message.get_body(("html",)) is not None, draft=draft)


@mailbox.route("/mailbox/letter/<key>.html")
def html_part(key: str):
    """The HTML part alone, for the letter page's sandboxed frame."""
    message = _message(key)
    html = letters.html_of(message, lambda cid: url_for("mailbox.picture", key=key, cid=cid))
    if html is None:
        abort(404, "This mail has no HTML part.")
    response = Response(html, mimetype="text/html")
    response.headers["Content-Security-Policy"] = ("default-src 'none'; img-src 'self' data:; "
                                                   "style-src 'unsafe-inline'; "
                                                   "frame-ancestors 'self'; base-uri 'none'")
    return response


@mailbox.route("/mailbox/letter/<key>/<cid>")
def picture(key: str, cid: str):
    found = letters.picture(_message(key), cid)
    if found is None:
        abort(404, "No such picture in this mail.")
    return Response(found[0], mimetype=found[1])


@mailbox.route("/mailbox/write")
def write():
    """A new mail to pbem, from the address given (or one to type)."""
    draft = {"sender": request.args.get("sender", ""), "to": config().address,
             "subject": "", "body": "", "in_reply_to": "", "references": ""}
    return _page("web/mailbox_write.html", draft=draft, refusal="")


@mailbox.route("/mailbox/send", methods=["POST"])
def send():
    draft = {name: request.form.get(name, "") for name in
             ("sender", "to", "subject", "body", "in_reply_to", "references")}
    refusal = csrf_refusal(FORM)
    if refusal is None and not config().smtp_listen:
        refusal = "pbem's SMTP listener is off (PBEM_SMTP_LISTEN is empty): nothing takes mail"
    if refusal is None:
        try:
            letters.send(config(), letters.written(config(), draft))
        except ValueError as error:
            refusal = str(error)
        except (OSError, smtplib.SMTPException) as error:
            refusal = f"pbem's SMTP listener did not take the mail: {error}"
    if refusal is not None:
        return _page("web/mailbox_write.html", draft=draft, refusal=refusal, status=400)
    sender = draft["sender"].strip().lower()
    return redirect(url_for("mailbox.inbox", address=sender, sent=1), 303)


def _message(key: str):
    message = letters.read(config(), key)
    if message is None:
        abort(404, "No such mail in the mailbox.")
    return message


def _page(template: str, status: int = 200, **context) -> Response:
    cookie, new = form_cookie()
    context.update(config=config(), csrf=csrf_token(cookie, FORM))
    response = Response(render_template(template, **context), status=status)
    return with_form_cookie(response, cookie, new, path="/mailbox")

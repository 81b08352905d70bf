"""The documentation site: `mkdocs build --strict` passes, nothing it builds loads anything from
another host, and the app serves it at /docs/ from the built folder alone, with the app's
Content-Security-Policy plus the hashes of each page's own inline scripts."""

import base64
import hashlib
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from django.urls import reverse

from tests.docs_site import ROOT, build_site

# One build for the module, on one worker.
pytestmark = pytest.mark.xdist_group("docs-site")

# URLs the theme's script holds, each for a feature this site does not use: they are never
# requested here (and the CSP of /docs/ would refuse them if they were).
THEME_FALLBACKS = {
    # Loaded only by browsers without ResizeObserver (every supported browser has it).
    "https://unpkg.com/resize-observer-polyfill": "old browsers",
    # Loaded only on a page holding a Mermaid diagram: test_no_page_needs_a_fallback.
    "https://unpkg.com/mermaid@11/dist/mermaid.min.js": "mermaid",
    # Repository facts, asked only when mkdocs.yml names a repo_url: same test.
    "https://api.github.com/repos/${e}/${t}": "repo_url",
    "https://api.github.com/users/${e}": "repo_url",
    "https://${e}/api/v4/projects/${encodeURIComponent(t)}": "repo_url",
}
OFF_SITE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)
CSS_URL = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)""", re.IGNORECASE | re.DOTALL)
CSS_IMPORT = re.compile(r"""@import\s+(?:url\()?\s*['"]?([^'");\s]+)""", re.IGNORECASE)
JS_URL_LITERAL = re.compile(
    r"""["'`]((?:https?://|//(?:[a-z0-9-]+\.)+[a-z]{2,}[/:])[^"'`\s]*)""", re.IGNORECASE
)
# Attributes that make a browser fetch something (an <a href> is only followed when clicked).
FETCHING = {"src", "srcset", "poster", "data", "action", "formaction", "background", "manifest"}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("docs") / "site"
    result = build_site(folder)
    assert result.returncode == 0, result.stdout + result.stderr
    return folder


def is_off_site(value: str) -> bool:
    value = value.strip()
    return bool(OFF_SITE.match(value)) and not value.lower().startswith("data:")


class Fetches(HTMLParser):
    """Every address a page makes the browser load, with the inline scripts and styles."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.loads: list[str] = []
        self.inline_scripts: list[str] = []
        self.inline_styles: list[str] = []
        self.classes: set[str] = set()
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.classes.update((attrs.get("class") or "").split())
        for name, value in attrs.items():
            if value is None:
                continue
            if name in FETCHING or (name in ("href", "xlink:href") and tag != "a"):
                self.loads += [part.split()[0] for part in value.split(",") if part.strip()]
            if name == "style":
                self.loads += [url for _, url in CSS_URL.findall(value)]
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "refresh":
            self.loads.append((attrs.get("content") or "").partition("url=")[2])
        if tag == "script" and "src" not in attrs and "json" not in (attrs.get("type") or ""):
            self._in = "script"
            self.inline_scripts.append("")
        if tag == "style":
            self._in = "style"
            self.inline_styles.append("")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.inline_scripts[-1] += data
        elif self._in == "style":
            self.inline_styles[-1] += data
            self.loads += [url for _, url in CSS_URL.findall(data)]
            self.loads += CSS_IMPORT.findall(data)


def read_page(path: Path) -> Fetches:
    parser = Fetches()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def sha256_source(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def csp_directives(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    parts = (part.strip().split() for part in header.split(";") if part.strip())
    return {part[0]: part[1:] for part in parts}


# --- the build ---------------------------------------------------------------------------------


def test_the_site_builds_strictly_with_every_page_in_the_nav(site):
    assert (site / "index.html").is_file() and (site / "search" / "search_index.json").is_file()
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    assert config["theme"]["font"] == "false", "web fonts would come from Google"
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    for page in pages:
        assert (site / page.replace(".md", ".html")).is_file(), page


def test_a_broken_link_fails_the_build(tmp_path):
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    page = tmp_path / "docs" / "api.md"
    page.write_text(page.read_text() + "\nSee [nothing](no-such-page.md#nowhere).\n")
    result = build_site(tmp_path / "site", config=tmp_path / "mkdocs.yml")
    assert result.returncode != 0 and "no-such-page.md" in result.stdout + result.stderr


# --- nothing from another host -----------------------------------------------------------------


def test_no_page_loads_anything_from_another_host(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    for path in pages:
        loads = [url for url in read_page(path).loads if is_off_site(url)]
        assert not loads, f"{path.relative_to(site)} loads {loads}"


def test_no_stylesheet_imports_or_points_to_another_host(site):
    sheets = sorted(site.rglob("*.css"))
    assert sheets
    for path in sheets:
        text = path.read_text(encoding="utf-8")
        urls = [url for _, url in CSS_URL.findall(text)] + CSS_IMPORT.findall(text)
        assert not [url for url in urls if is_off_site(url)], path.relative_to(site)


def test_scripts_name_no_other_host_but_the_themes_unused_fallbacks(site):
    found = set()
    for path in site.rglob("*.js"):
        found.update(JS_URL_LITERAL.findall(path.read_text(encoding="utf-8", errors="replace")))
    assert found <= set(THEME_FALLBACKS), sorted(found - set(THEME_FALLBACKS))


def test_no_page_needs_a_fallback(site):
    """The theme's fallbacks above stay unused: no Mermaid diagram, no repository to ask."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    assert "repo_url" not in config and "site_url" not in config
    for path in site.rglob("*.html"):
        assert "mermaid" not in read_page(path).classes, path.relative_to(site)


# --- served at /docs/ --------------------------------------------------------------------------


@pytest.fixture
def served(site, settings):
    settings.DOCS_SITE_ROOT = site
    return site


def test_the_index_is_served_with_its_inline_scripts_allowed_by_hash(client, served):
    response = client.get("/docs/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    body = response.content.decode()
    assert "<title>Shortlist documentation</title>" in body
    page = read_page(served / "index.html")
    assert page.inline_scripts, "the theme writes inline scripts"
    directives = csp_directives(response)
    scripts = directives["script-src"]
    assert "'self'" in scripts and "'unsafe-inline'" not in scripts
    assert {sha256_source(s) for s in page.inline_scripts} <= set(scripts)
    assert set(scripts) - {"'self'"} == {sha256_source(s) for s in page.inline_scripts}
    assert directives["default-src"] == ["'self'"] and directives["frame-ancestors"] == ["'none'"]


def test_the_apps_own_pages_keep_their_policy_and_link_to_the_docs(client, served, db):
    response = client.get(reverse("login"))
    assert csp_directives(response)["script-src"] == ["'self'"]
    assert 'href="/docs/"' in response.content.decode()


def test_pages_assets_and_the_search_index_are_served(client, served):
    page = client.get("/docs/guide/reviewer.html")
    assert page.status_code == 200 and "Declared conflicts of interest" in page.content.decode()
    assert client.get("/docs/guide/").status_code == 200
    bundle = next((served / "assets" / "javascripts").glob("bundle.*.min.js")).name
    script = client.get(f"/docs/assets/javascripts/{bundle}")
    assert script.status_code == 200 and "javascript" in script["Content-Type"]
    index = client.get("/docs/search/search_index.json")
    assert index.status_code == 200 and b"Backup and restore" in b"".join(index.streaming_content)
    assert client.head("/docs/method.html").status_code == 200
    assert client.post("/docs/method.html").status_code == 405


def test_folders_and_page_names_redirect_to_the_page(client, served):
    assert client.get("/docs/guide").url == "/docs/guide/"
    assert client.get("/docs/method/").url == "/docs/method.html"
    assert client.get("/docs/guide/reviewer/").url == "/docs/guide/reviewer.html"
    assert client.get("/docs/no-such-page/").status_code == 404
    assert client.get("/docs/no-such-page.html").status_code == 404


def test_a_page_not_modified_since_is_not_sent_again(client, served):
    first = client.get("/docs/method.html")
    again = client.get("/docs/method.html", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert again.status_code == 304


@pytest.mark.parametrize(
    "path",
    [
        "/docs/../config/settings/base.py",
        "/docs/../../config/settings/base.py",
        "/docs/%2e%2e/config/settings/base.py",
        "/docs/%2E%2E%2Fconfig%2Fsettings%2Fbase.py",
        "/docs/..%2fconfig/settings/base.py",
        "/docs/..%5cconfig%5csettings%5cbase.py",
        "/docs/guide/../../config/settings/base.py",
        "/docs/%252e%252e/config/settings/base.py",
        "/docs//etc/passwd",
        "/docs/%2fetc%2fpasswd",
        "/docs/.secret",
        "/docs/outside.py",
    ],
)
def test_nothing_outside_the_built_folder_is_served(client, served, path):
    """A file planted next to the site, and a link from inside it to that file, stay out."""
    secret = served.parent / "config" / "settings" / "base.py"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text("SECRET_KEY = 'planted'\n")
    (served / ".secret").write_text("hidden\n")
    link = served / "outside.py"
    if not link.is_symlink():
        link.symlink_to(secret)
    response = client.get(path)
    assert response.status_code == 404, path
    assert b"planted" not in response.content and b"hidden" not in response.content


def test_an_unbuilt_site_says_how_to_build_it(client, settings, tmp_path, db):
    settings.DOCS_SITE_ROOT = tmp_path / "never-built"
    for path in ("/docs/", "/docs/method.html"):
        response = client.get(path)
        assert response.status_code == 503
        assert "make docs" in response.content.decode()

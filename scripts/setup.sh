#!/usr/bin/env bash
# Installs what webkeep needs, when it is missing, for one role:
#   scripts/setup.sh build            Go (the Go module proxy's toolchain, into .cache/go)
#   scripts/setup.sh demo [firefox]   that, Node.js, Debian's chromium (or firefox-esr)
#                                     and the npm packages the demo runs (npm ci --omit=dev)
#   scripts/setup.sh test             everything the tests use: that, firefox-esr,
#                                     openssl, ffmpeg, DokuWiki and MediaWiki (Debian's), the
#                                     npm dev tooling (npm ci) and ReplayWeb.page
# Safe to run again: it does nothing when all is present.
set -euo pipefail
cd "$(dirname "$0")/.."
role=${1:-test}
browser=${2:-chromium}
case "$role" in build|demo|test) ;; *) echo "usage: scripts/setup.sh build|demo [firefox]|test" >&2; exit 2 ;; esac

GO_VERSION=1.26.8
say() { echo "setup: $*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else say "need root for: $*"; return 1; fi; }
apt_updated=
apt_update() {
  if [ -z "$apt_updated" ]; then as_root apt-get update -qq >&2; apt_updated=1; fi
}
apt_install() {
  apt_update
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >&2
}

export PATH="$PWD/.cache/go/bin:$PATH"
if ! command -v go >/dev/null || ! go version | grep -q "go1\.2[6-9]"; then
  say "installing Go $GO_VERSION into .cache/go"
  command -v curl >/dev/null || apt_install curl ca-certificates
  command -v unzip >/dev/null || apt_install unzip
  mkdir -p .cache && rm -rf .cache/go .cache/toolchain
  curl -fsSL -o .cache/go.zip "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go${GO_VERSION}.linux-amd64.zip"
  unzip -q .cache/go.zip -d .cache/toolchain && rm .cache/go.zip
  mv ".cache/toolchain/golang.org/toolchain@v0.0.1-go${GO_VERSION}.linux-amd64" .cache/go
  chmod +x .cache/go/bin/* .cache/go/pkg/tool/*/* 2>/dev/null || true
  rm -rf .cache/toolchain
fi

[ "$role" = build ] && exit 0

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  say "installing Node.js"
  apt_install nodejs npm
fi

if [ "$role" = demo ]; then
  if [ "$browser" = firefox ]; then
    [ -x /usr/bin/firefox-esr ] || { say "installing Debian's firefox-esr"; apt_install firefox-esr; }
  else
    [ -x /usr/bin/chromium ] || { say "installing Debian's chromium"; apt_install chromium; }
  fi
  # The demo's npm packages are the "dependencies" (playwright-core, puppeteer-core,
  # warcio); the Worker's tooling (miniflare, workerd) is for the tests.
  if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/puppeteer-core ] || [ ! -d node_modules/warcio ]; then
    say "npm ci --omit=dev"
    npm ci --omit=dev --no-audit --no-fund --loglevel=error >&2
  fi
  exit 0
fi

if [ ! -x /usr/bin/chromium ]; then
  say "installing Debian's chromium"
  apt_install chromium
fi

# OpenSSL's `openssl ts` is the real timestamp authority of the signing tests
# (internal/opensslts).
command -v openssl >/dev/null || { say "installing openssl"; apt_install openssl; }
# Debian's ffmpeg encodes the real video that replay plays and seeks in
# (scripts/test/e2e/video.test.mjs).
command -v ffmpeg >/dev/null || { say "installing ffmpeg"; apt_install --no-install-recommends ffmpeg; }

if [ ! -x /usr/bin/firefox-esr ]; then
  say "installing Debian's firefox-esr"
  apt_install firefox-esr
fi

# A real web application for scripts/test/e2e/realsite.test.mjs and its benchmark: Debian's
# DokuWiki, served by PHP's own server (php-cli). php-cgi is installed first, so that
# dokuwiki's dependency on a PHP server module is met by it rather than by Apache: no
# daemon is installed or started.
if [ ! -f /usr/share/dokuwiki/doku.php ] || ! command -v php >/dev/null; then
  say "installing Debian's dokuwiki and php-cli"
  apt_install --no-install-recommends php-cli php-cgi
  apt_install --no-install-recommends dokuwiki
fi

# A second real web application, for scripts/test/e2e/realsite-mediawiki.test.mjs: Debian's
# MediaWiki. Its packages are unpacked into .cache/mediawiki, not installed (installing
# them would install and start Apache); PHP's own server runs it, with the PHP modules
# it needs.
if ! php -r 'exit(extension_loaded("pdo_sqlite") && extension_loaded("intl") && extension_loaded("mbstring") && extension_loaded("dom") ? 0 : 1);' 2>/dev/null; then
  say "installing the PHP modules MediaWiki needs"
  apt_install --no-install-recommends php-sqlite3 php-intl php-mbstring php-xml
fi
if [ ! -f .cache/mediawiki/usr/share/mediawiki/index.php ]; then
  say "unpacking Debian's mediawiki into .cache/mediawiki"
  apt_update
  rm -rf .cache/mediawiki .cache/mediawiki-debs && mkdir -p .cache/mediawiki-debs
  (cd .cache/mediawiki-debs && apt-get download -qq mediawiki mediawiki-classes >&2)
  for deb in .cache/mediawiki-debs/*.deb; do dpkg-deb -x "$deb" .cache/mediawiki; done
  rm -rf .cache/mediawiki-debs
fi

if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/miniflare ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

# ReplayWeb.page, to replay what webkeep downloads in the tool most people use: its
# built app (index.html, ui.js, sw.js) from the npm package. `npm install` of it fails
# (a dependency's version is missing from the registry), but the package itself is all
# that is served.
RWP_VERSION=2.5.3
if [ ! -f ".cache/replaywebpage-$RWP_VERSION/sw.js" ]; then
  say "fetching ReplayWeb.page $RWP_VERSION"
  mkdir -p .cache && rm -rf ".cache/replaywebpage-$RWP_VERSION"
  tgz=$(cd .cache && npm pack "replaywebpage@$RWP_VERSION" --silent)
  mkdir -p ".cache/replaywebpage-$RWP_VERSION"
  tar xzf ".cache/$tgz" -C ".cache/replaywebpage-$RWP_VERSION" --strip-components=1
  rm ".cache/$tgz"
fi

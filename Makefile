# CLup Kiosk — the two commands a new machine needs:
#   make demo   set up, build, and run the kiosk (both roles, emulated devices, an embedded server)
#   make test   set up, build, and pass the whole test suite (what CI runs)
# and:
#   make check  the everyday check before a commit: lint, the repository's rules, the pure modules' unit tests
#   make deb    the Debian package (release build) under out/deb/
#   make bench  the benchmarks (release build)
#   make screenshots  the pages' pictures (docs/screenshots, shown in docs/web-app.md), from the tests' Chromium
# Both install the Debian packages they need when they are missing (as root, or through sudo).

SWIFT       ?= swift
SWIFT_FLAGS ?=
VENV        := .venv-test
DEMO_DIR    ?= out/demo

# Build: libraries we link, and the headers they come with (libcups, libespeak-ng, libasound and libgpiod are
# opened at run time, where configured: only their headers are needed here).
APT_BUILD := libusb-1.0-0-dev libqrencode-dev libcups2-dev zlib1g-dev libsqlite3-dev libespeak-ng-dev libasound2-dev \
             libgpiod-dev
# Run: the emulator's console fonts.
APT_RUN   := console-setup-linux
# Test: an independent QR decoder, a real CUPS scheduler with its socket backend, a Python for python-escpos,
# a real browser for the pages, what the package test and the appliance guest need (dpkg-shlibdeps, a clean
# Debian 12 root by debootstrap, its ext4 disk by mke2fs), and
# what the USB gadget rig needs (qemu, a static busybox for its initramfs, depmod), and libfaketime (kioskd run
# across a night under a fake clock), PostgreSQL's server (a private cluster per suite: clup-server's second
# backend), nginx (the load balancer in front of clup-server replicas in FleetTests), and pocketsphinx with
# its English model, sox and alsa-utils (what records and listens to the kiosk's voice).
APT_TEST  := zbar-tools cups cups-daemon cups-client python3-venv systemd chromium chromium-driver prometheus \
             dpkg-dev debootstrap e2fsprogs curl libcurl4-openssl-dev \
             qemu-system-x86 busybox-static kmod udev xz-utils cpio faketime postgresql nginx-light \
             pocketsphinx pocketsphinx-en-us sox alsa-utils
# Package: dpkg-shlibdeps works out the library dependencies; the static Swift runtime's FoundationNetworking
# links libcurl by its development name.
APT_DEB   := dpkg-dev libcurl4-openssl-dev

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build demo test check rules bench deb hil screenshots format lint deps-build deps-run deps-test clean \
	packages

SOURCES := Sources Tests Benchmarks Package.swift

all: build

# Installs only what is missing, so a machine that has everything never calls apt-get.
define apt_ensure
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed$$' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages: $$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

# The Debian packages each step installs (docs/testing.md points here).
packages:
	@printf 'build:   %s\nrun:     %s\ntest:    %s\npackage: %s\n' "$(APT_BUILD)" "$(APT_RUN)" "$(APT_TEST)" "$(APT_DEB)"

deps-build:
	$(call apt_ensure,$(APT_BUILD))

deps-run: deps-build
	$(call apt_ensure,$(APT_RUN))

deps-test: deps-run
	$(call apt_ensure,$(APT_TEST))
	@[ -x $(VENV)/bin/python ] || python3 -m venv $(VENV)
	@$(VENV)/bin/python -c 'import escpos' 2>/dev/null || $(VENV)/bin/pip install -q 'python-escpos>=3.1,<4'
	@$(VENV)/bin/python -c 'import selenium' 2>/dev/null || $(VENV)/bin/pip install -q 'selenium>=4.15,<5'
	@[ -x $(VENV)/bin/schemathesis ] || $(VENV)/bin/pip install -q 'schemathesis>=4.3,<5'
	@# Web Push's independent checks: aes128gcm (RFC 8291) and VAPID (RFC 8292).
	@$(VENV)/bin/python -c 'import http_ece, py_vapid' 2>/dev/null || $(VENV)/bin/pip install -q 'http-ece>=1.2,<2' 'py-vapid>=1.9,<2'
	@# axe-core 4.12 (WCAG 2.2 rules) as axe-playwright-python carries it; only its script is used, so not its
	@# Playwright (--no-deps).
	@$(VENV)/bin/python -c 'import importlib.util as u; exit(u.find_spec("axe_playwright_python") is None)' 2>/dev/null || \
		$(VENV)/bin/pip install -q --no-deps 'axe-playwright-python==0.1.8'

# Every debug build (build, demo, check, test) is Swift for debugging but C optimised — BoringSSL's Ed25519 at -O0
# would make the million-line scanner fuzz test verify signatures ten times slower — and with the same flags, so
# that one build serves them all (other C flags would rebuild everything).
TEST_FLAGS := -Xcc -O2

build: deps-build
	$(SWIFT) build $(TEST_FLAGS) $(SWIFT_FLAGS)

# The package test installs a .deb built like `make deb` but from a debug build (a release build from
# scratch would double CI's build time); the packaging script and the package's contents are the same.
TEST_DEB_DIR := .build-deb-test

# The qemu guests' kernel and disk (Tests/appliance/image.sh: a download and debootstrap, as root; kept in
# .build-hil) are made while Swift builds, and waited for before any test runs: they are the guests' first minutes.
test: deps-test lint rules
	mkdir -p .build-hil
	{ [ "$$(id -u)" != 0 ] || Tests/appliance/image.sh .build-hil >.build-hil/image.log 2>&1; } & image=$$!; \
	$(SWIFT) build --build-tests $(TEST_FLAGS) $(SWIFT_FLAGS) && \
	SWIFT=$(SWIFT) Scripts/build-deb.sh -c debug -o $(TEST_DEB_DIR) && \
	cp "$$(SWIFT=$(SWIFT) Scripts/build-deb.sh -c debug -b scanner-emulator)" $(TEST_DEB_DIR)/scanner-emulator; \
	built=$$?; wait $$image; exit $$built
	# One test at a time in each group: the qemu guests beside the suites that time no device, then the rest
	# alone — the hardware-in-the-loop tests measure latencies that two cores shared would distort.
	CLUP_TEST_STRICT=1 CLUP_PYTHON=$(CURDIR)/$(VENV)/bin/python CLUP_TEST_DEB=$$(ls $(CURDIR)/$(TEST_DEB_DIR)/*.deb) \
		SWIFT=$(SWIFT) Scripts/run-tests.sh $(TEST_FLAGS) $(SWIFT_FLAGS)

# The everyday check (docs/testing.md): lint, the one-way imports, file sizes and links (Scripts/check-rules.py),
# and the unit tests of the modules that need no device, server or browser. Package.swift then declares only those
# suites and what they import (CLUP_CHECK_SUITES), built in .build-check/: a change to KioskCore rebuilds neither
# the station, the server nor their suites. One suite alone: make check SUITES=KioskCoreTests.
SUITES      ?= KioskCoreTests,DriversTests,ServiceSupportTests,ServicesTests
CHECK_SWIFT := CLUP_CHECK_SUITES=$(SUITES) $(SWIFT)
CHECK_BUILD := .build-check

check: deps-build lint rules
	$(CHECK_SWIFT) build --build-tests --quiet --scratch-path $(CHECK_BUILD) $(TEST_FLAGS) $(SWIFT_FLAGS)
	$(CHECK_SWIFT) test --skip-build --scratch-path $(CHECK_BUILD) $(TEST_FLAGS) $(SWIFT_FLAGS)

rules:
	python3 Scripts/check-rules.py

# The README's pictures of the pages (docs/screenshots), taken by the page tour's headless Chromium.
screenshots: deps-test
	$(SWIFT) build --build-tests $(TEST_FLAGS) $(SWIFT_FLAGS)
	mkdir -p docs/screenshots
	CLUP_SCREENSHOTS=$(CURDIR)/docs/screenshots CLUP_PYTHON=$(CURDIR)/$(VENV)/bin/python \
		$(SWIFT) test --skip-build --filter PagesTourTests $(TEST_FLAGS) $(SWIFT_FLAGS)

# The USB gadget rig alone (Tests/hil-vm): a qemu guest with a USB printer and a HID scanner gadget. `make test`
# runs it too.
hil: deps-test
	$(SWIFT) build --build-tests $(TEST_FLAGS) $(SWIFT_FLAGS)
	CLUP_HIL_VM=1 $(SWIFT) test --skip-build --filter USBGadgetRigTests $(TEST_FLAGS) $(SWIFT_FLAGS)

deb: deps-build
	$(call apt_ensure,$(APT_DEB))
	Scripts/build-deb.sh -c release -o out/deb

# The demo's own flags: make demo ARGS='--http-port 8081 --no-browser' (kiosk-demo --help lists them).
ARGS ?=
demo: deps-run
	$(SWIFT) build $(TEST_FLAGS) $(SWIFT_FLAGS) --product kiosk-demo
	"$$($(SWIFT) build $(TEST_FLAGS) $(SWIFT_FLAGS) --show-bin-path)/kiosk-demo" --out "$(DEMO_DIR)" $(ARGS)

# One group alone: make bench ONLY=estimate (printer, station, door, server, flood, pages, sync, fleet, estimate,
# history, daemon). ONLY=appliance is apart (not in all): the appliance guest's 50 power cuts, about half an hour
# under software emulation, run by the appliance tests with the package make test builds.
ONLY ?= all
APPLIANCE_CUTS ?= 50

# The daemon benchmarks measure the kioskd that `make deb` ships (static Swift runtime, packed relocations).
bench: deps-test
ifeq ($(ONLY),appliance)
	$(SWIFT) build --build-tests $(TEST_FLAGS) $(SWIFT_FLAGS)
	SWIFT=$(SWIFT) Scripts/build-deb.sh -c debug -o $(TEST_DEB_DIR)
	CLUP_TEST_STRICT=1 CLUP_APPLIANCE_CUTS=$(APPLIANCE_CUTS) CLUP_TEST_DEB=$$(ls $(CURDIR)/$(TEST_DEB_DIR)/*.deb) \
		$(SWIFT) test --skip-build --no-parallel $(TEST_FLAGS) $(SWIFT_FLAGS) --filter AppliancePowerCutTests
else
	$(call apt_ensure,$(APT_DEB))
	$(SWIFT) build -c release --product clup-bench
	$(SWIFT) build -c release --product clup-server
	kioskd=$$(SWIFT=$(SWIFT) Scripts/build-deb.sh -c release -b kioskd) && \
		.build/release/clup-bench --python $(CURDIR)/$(VENV)/bin/python --kioskd "$$kioskd" --only $(ONLY)
endif

# swift-nio's .swift-format (4 spaces, 120 columns); `make format` fixes what `make lint` reports.
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(SOURCES)

format:
	$(SWIFT) format format --in-place --recursive --parallel $(SOURCES)

clean:
	rm -rf .build $(CHECK_BUILD) out $(VENV)

# Darkroom — the two commands on a fresh Debian machine are `make run` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
# DARKROOM_PORTABLE=1: build DarkroomCore for the x86-64 baseline instead of x86-64-v3 (see Package.swift).
export DARKROOM_PORTABLE
# C libraries (system-library targets, found with pkg-config) and the tools tests read outputs back with.
APT_PACKAGES := pkg-config libraw-dev libtiff-dev liblcms2-dev libheif-dev libturbojpeg0-dev libpng-dev libxxhash-dev xxhash \
                libjpeg62-turbo-dev zlib1g-dev libheif-examples libimage-exiftool-perl
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := .build/release/darkroom

.PHONY: all deps swift build run test bench bench-peers bench-demosaic profiles samples clean

all: build

# $(call apt_install,PACKAGES,EXTRA_APT_FLAGS): installs whichever of PACKAGES are missing
# (nothing when all are present).
define apt_install
	@missing=$$(for p in $(1); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	    echo "make: installing missing packages:" $$missing; \
	    $(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $(2) $$missing; \
	fi
endef

deps:
	$(call apt_install,$(APT_PACKAGES))

swift:
	@command -v $(SWIFT) >/dev/null || { echo "make: Swift 6.1+ toolchain not found (https://www.swift.org/install/linux/)"; exit 1; }

build: deps swift
	$(SWIFT) build -c release --product darkroom

# Develops every bundled sample into out/.
run: build
	@mkdir -p out
	$(BIN) develop Samples/*.dng -o out --overwrite --report out/report.json --log text

test: deps swift
	$(SWIFT) test

# Speed, CPU time and peak memory (release build) on synthetic 24 MP / 12 MP 14-bit DNGs written by
# our DNGWriter: decode, each stage, whole develop to JPEG and HEIF with 1 and 2 threads, ratios to
# the floor (LibRaw unpack + libjpeg-turbo encode), HEIF preset study, and peers when installed.
# Tables on stdout and in out/bench.md, machine-readable in out/bench.json. BENCH_ARGS=--quick for one run.
BENCH_ARGS ?=
# /usr/bin/time (package `time`) reports whole-file runs' peak memory.
BENCH_PACKAGES := time
bench: deps swift
	$(call apt_install,$(BENCH_PACKAGES))
	$(SWIFT) build -c release --product darkroom
	$(SWIFT) build -c release --product darkroom-bench
	@mkdir -p out
	.build/release/darkroom-bench --darkroom .build/release/darkroom --markdown out/bench.md --json out/bench.json $(BENCH_ARGS)

# The peers the bench compares with (dcraw_emu | cjpeg, darktable-cli, rawtherapee-cli), then `make bench`.
PEER_PACKAGES := libraw-bin libjpeg-turbo-progs darktable rawtherapee
bench-peers: deps
	$(call apt_install,$(PEER_PACKAGES),--no-install-recommends)
	$(MAKE) bench

# Demosaic quality (CPSNR on Kodak 24) and speed.
bench-demosaic: deps swift
	$(SWIFT) build -c release --product bench-demosaic
	.build/release/bench-demosaic ../shared/samples/kodak24 --markdown

# Regenerate Profiles/*.icc (lcms2) and Samples/*.dng (our DNG writer).
profiles: build
	$(BIN) profiles --write-icc Profiles

samples: build
	$(BIN) make-samples -o Samples

clean:
	rm -rf .build out

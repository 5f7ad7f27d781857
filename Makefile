# Darkroom — the two commands on a fresh Debian machine are `make run` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
# DARKROOM_PORTABLE=1: build DarkroomCore for the x86-64 baseline instead of x86-64-v3 (see Package.swift).
export DARKROOM_PORTABLE
# What building and running need: the C libraries (system-library targets, found with pkg-config).
RUN_PACKAGES := pkg-config libraw-dev libtiff-dev liblcms2-dev libheif-dev libturbojpeg0-dev libpng-dev libxxhash-dev \
                libjpeg62-turbo-dev zlib1g-dev libjxl-dev libopenexr-dev \
                liblensfun-dev liblensfun-data-v1 libglib2.0-dev \
                libxnnpack-dev libpthreadpool-dev libssl-dev
# What only the tests use, to read outputs back independently: xxhsum, heif-info/heif-convert, exiftool,
# exrheader, Chromium (compare's HTML report screenshot), a one-node SLURM cluster and GNU parallel
# (ClusterTests), LibRaw's dcraw_emu (CameraReferenceTests). `make test` installs them (test-deps).
TEST_PACKAGES := xxhash libheif-examples libimage-exiftool-perl openexr chromium slurm-wlm munge parallel libraw-bin
APT_PACKAGES := $(RUN_PACKAGES) $(TEST_PACKAGES)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := .build/release/darkroom

.PHONY: pictures all deps swift build run models neural-reference test test-build test-fast hostile mutate fuzz bench bench-peers bench-demosaic bench-quality demosaic-sets profiles samples constant-colour-pairs constant-colour-picture constant-colour-table clean

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
	$(call apt_install,$(RUN_PACKAGES))

test-deps: deps
	$(call apt_install,$(TEST_PACKAGES))

swift:
	@command -v $(SWIFT) >/dev/null || { echo "make: Swift 6.1+ toolchain not found (https://www.swift.org/install/linux/)"; exit 1; }

build: deps swift models
	$(SWIFT) build -c release --product darkroom

# Develops every bundled sample into out/.
run: build
	@mkdir -p out
	$(BIN) develop Samples/*.dng -o out --overwrite --report out/report.json --log text

# `make test`: one build, every suite once, then the hostile corpus against the binary it built.
# The build is the release configuration users get (DarkroomCore's pixel kernels `-Ounchecked` for
# x86-64-v3) plus -enable-testing; every target that reads file bytes, arguments or recipes
# (Formats, IO, Batch, Neural, CLI) is `-O` with Swift's runtime checks on (bounds, overflow,
# exclusivity): TestConfigurationTests keeps both true. Suites run one after the other so that each
# suite's time is its own; the table of the slowest suites prints at the end, and a suite over
# SUITE_BUDGET seconds fails the run (a budget on what the suite costs, not a product-speed test:
# that is `make bench`). Then the hostile-input regression corpus (Tests/Hostile/hostile.py,
# generated from Samples/ and ../shared): develop, info --json, explain and thumbnail on every file
# must end cleanly within 30 s, with a one-line error naming the file, and inputs <= 1 MB under
# 300 MB peak memory.
TEST_BUILD := .build-release-tests
TEST_CONFIG := -c release --scratch-path $(TEST_BUILD) -Xswiftc -enable-testing
# The slowest suite takes 20–30 s on a quiet 2-core machine and 114 s with four builds beside it;
# 150 s tolerates a loaded machine and still catches a suite made minutes slower.
SUITE_BUDGET ?= 150
TEST_EVENTS := out/test-events.jsonl
test: deps swift models test-build
	@mkdir -p out && rm -f $(TEST_EVENTS)
	@$(SWIFT) test $(TEST_CONFIG) --skip-build --no-parallel \
	    --event-stream-output-path $(TEST_EVENTS) --event-stream-version 0; status=$$?; \
	python3 Tests/Tools/suite_times.py $(TEST_EVENTS) --budget $(SUITE_BUDGET) \
	    --expect-suites $(INTEGRATION_LIST) || { [ $$status -ne 0 ] || status=1; }; exit $$status
	$(MAKE) hostile DARKROOM_BIN=$(TEST_BUILD)/release/darkroom

test-build: deps swift
	$(SWIFT) build $(TEST_CONFIG) --build-tests

# `make test-fast`: the inner loop, a few minutes after the build. The same build as `make test`;
# every suite except those listed in Tests/integration-suites.txt (full-size renders, the whole
# corpus, Chromium, the neural models, process isolation: each listed with its reason), in parallel.
INTEGRATION_LIST := Tests/integration-suites.txt
INTEGRATION_REGEX := \.($(shell sed -e 's/\#.*//' $(INTEGRATION_LIST) | xargs | tr ' ' '|'))/
test-fast: deps swift test-build
	$(SWIFT) test $(TEST_CONFIG) --skip-build --skip '$(INTEGRATION_REGEX)'

DARKROOM_BIN ?= $(BIN)
hostile:
	@test -x $(DARKROOM_BIN) || $(SWIFT) build -c release --product darkroom
	@rm -rf out/hostile-corpus
	python3 Tests/Hostile/hostile.py corpus out/hostile-corpus
	python3 Tests/Hostile/hostile.py run $(DARKROOM_BIN) out/hostile-corpus

# MUTANTS fresh mutants of Samples/*.dng and ../shared/samples/dng (byte flips, truncations, TIFF
# entries set to extremes, duplicated chunks), each through the four commands (release build).
MUTANTS ?= 2000
SEED ?= 1
mutate: build
	python3 Tests/Hostile/hostile.py mutate $(BIN) $(MUTANTS) --seed $(SEED)

# libFuzzer, one target per parser (Tests/Fuzz/*; bodies in Tests/Fuzz/Bodies), each for
# FUZZ_SECONDS, corpora in out/fuzz/NAME/corpus seeded from Samples/, the hostile corpus,
# hand-made opcode lists and lossless-JPEG streams (Tests/Fuzz/seeds.py). Debug build: every
# Swift runtime check on; linked with lld (gold fails on libFuzzer's runtime). A crash leaves its
# input in out/fuzz/NAME/crash-*: copy it to Tests/Fuzz/Regressions/NAME/ and FuzzRegressionTests
# replays it in every `make test`.
FUZZ_TARGETS := FuzzDNGMetadata FuzzOpcodeList FuzzLosslessJPEG FuzzContainers FuzzDecode FuzzColourFiles
FUZZ_SECONDS ?= 120
fuzz: deps swift
	@for t in $(FUZZ_TARGETS); do \
	    DARKROOM_FUZZ=1 $(SWIFT) build --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld \
	        --product $$t || exit 1; \
	done
	python3 Tests/Fuzz/seeds.py out/fuzz
	@for t in $(FUZZ_TARGETS); do \
	    echo "== $$t ($(FUZZ_SECONDS) s)"; \
	    (set -o pipefail; cd out/fuzz/$$t && SWIFT_BACKTRACE=enable=no ../../../.build-fuzz/debug/$$t \
	        -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=60 -print_final_stats=1 \
	        -artifact_prefix=./ corpus seeds 2>&1 | grep -v "^INFO: \|^#[0-9]" | tail -n 20) || exit 1; \
	done

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

# The peers the benches compare with (dcraw_emu | cjpeg, darktable-cli, rawtherapee-cli; sqlite3 reads
# darktable's module parameters for bench-quality's peer rows), then `make bench`.
PEER_PACKAGES := libraw-bin libjpeg-turbo-progs darktable rawtherapee sqlite3
bench-peers: deps
	$(call apt_install,$(PEER_PACKAGES),--no-install-recommends)
	$(MAKE) bench

# Demosaic quality (CPSNR on Kodak 24 and on a saturated-colour set) and speed.
# DEMOSAIC_SET=kodak24|saturated|all (default all); BENCH_DEMOSAIC_ARGS passes more flags
# (e.g. --no-speed, --algorithms gbtf,mlri).
DEMOSAIC_SET ?= all
bench-demosaic: deps swift $(if $(filter kodak24,$(DEMOSAIC_SET)),,demosaic-sets)
	$(SWIFT) build -c release --product bench-demosaic
	.build/release/bench-demosaic ../shared/samples/kodak24 --set $(DEMOSAIC_SET) \
	    --saturated-dir $(SKIMAGE_DATA) --markdown $(BENCH_DEMOSAIC_ARGS)

# Noise reduction quality (PSNR / SSIM against the clean render at three noise levels, Kodak 24 and
# the saturated set's photographs when fetched); BENCH_QUALITY_ARGS passes more flags (--images N).
bench-quality: deps swift
	$(SWIFT) build -c release --product bench-quality
	.build/release/bench-quality --markdown $(BENCH_QUALITY_ARGS)

# The photographs of the saturated set: the colour PNGs scikit-image 0.24.0 ships in its wheel,
# fetched by exact version and file, checked against the pinned SHA-256, extracted under out/.
SKIMAGE_WHEEL := scikit_image-0.24.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
SKIMAGE_SHA256 := fa27b3a0dbad807b966b8db2d78da734cb812ca4787f7fbb143764800ce2fa9c
SKIMAGE_PNGS := astronaut chelsea coffee color ihc logo motorcycle_left motorcycle_right
SKIMAGE_DATA := out/demosaic-sets/skimage-0.24.0
demosaic-sets: $(SKIMAGE_DATA)/.complete
$(SKIMAGE_DATA)/.complete:
	@python3 -m pip --version >/dev/null 2>&1 || { echo "make: installing python3-pip"; $(SUDO) apt-get update -q \
	    && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q python3-pip; }
	@mkdir -p out/demosaic-sets
	@[ -f out/demosaic-sets/$(SKIMAGE_WHEEL) ] || python3 -m pip download --no-deps --only-binary=:all: \
	    --python-version 3.11 --implementation cp --platform manylinux_2_17_x86_64 \
	    scikit-image==0.24.0 -d out/demosaic-sets
	@echo "$(SKIMAGE_SHA256)  out/demosaic-sets/$(SKIMAGE_WHEEL)" | sha256sum -c --quiet - \
	    || { echo "make: $(SKIMAGE_WHEEL): SHA-256 differs from the pinned one (removed)"; \
	         rm -f out/demosaic-sets/$(SKIMAGE_WHEEL); exit 1; }
	@rm -rf $(SKIMAGE_DATA) && mkdir -p $(SKIMAGE_DATA)
	@cd $(SKIMAGE_DATA) && python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
	    [open(n + ".png", "wb").write(z.read("skimage/data/" + n + ".png")) for n in sys.argv[2:]]' \
	    ../$(SKIMAGE_WHEEL) $(SKIMAGE_PNGS)
	@touch $@

# The MediaPipe models of the neural mattes (Models/README.md): the mediapipe 0.10.21 wheel fetched
# by name and exact version with pip, checked against its pinned SHA-256, and the four .tflite files
# extracted into out/models/mediapipe-0.10.21/ and checked one by one.
MP_WHEEL := mediapipe-0.10.21-cp311-cp311-manylinux_2_28_x86_64.whl
MP_WHEEL_SHA256 := 05dc4a9e593655a79558d05d6227d31018c2537a4bd3362b51e230cf22aecfe3
MP_MODELS := out/models/mediapipe-0.10.21
MP_FILES := selfie_segmentation/selfie_segmentation.tflite:9ee168ec7c8f2a16c56fe8e1cfbc514974cbbb7e434051b455635f1bd1462f5c \
            face_detection/face_detection_short_range.tflite:bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8 \
            face_landmark/face_landmark.tflite:1055cb9d4a9ca8b8c688902a3a5194311138ba256bcc94e336d8373a5f30c814 \
            face_landmark/face_landmark_with_attention.tflite:e06a804e0144f9929eda782122916b35d60c697c3c9344013ca2bbe76a6ce2b4
models: $(MP_MODELS)/.complete
$(MP_MODELS)/.complete:
	@python3 -m pip --version >/dev/null 2>&1 || { echo "make: installing python3-pip"; $(SUDO) apt-get update -q \
	    && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q python3-pip; }
	@mkdir -p out/models
	@[ -f out/models/$(MP_WHEEL) ] || python3 -m pip download -q --no-deps --only-binary=:all: \
	    --python-version 3.11 --implementation cp --platform manylinux_2_28_x86_64 \
	    mediapipe==0.10.21 -d out/models
	@echo "$(MP_WHEEL_SHA256)  out/models/$(MP_WHEEL)" | sha256sum -c --quiet - \
	    || { echo "make: $(MP_WHEEL): SHA-256 differs from the pinned one (removed)"; \
	         rm -f out/models/$(MP_WHEEL); exit 1; }
	@rm -rf $(MP_MODELS) && mkdir -p $(MP_MODELS)
	@for entry in $(MP_FILES); do \
	    member=$${entry%%:*}; sha=$${entry##*:}; file=$(MP_MODELS)/$$(basename $$member); \
	    python3 -c 'import sys, zipfile; open(sys.argv[3], "wb").write(zipfile.ZipFile(sys.argv[1]).read("mediapipe/modules/" + sys.argv[2]))' \
	        out/models/$(MP_WHEEL) $$member $$file || exit 1; \
	    echo "$$sha  $$file" | sha256sum -c --quiet - \
	        || { echo "make: $$file: SHA-256 differs from the pinned one"; rm -rf $(MP_MODELS); exit 1; }; \
	done
	@touch $@

# Tests/NeuralReference: the TFLite interpreter's outputs for the models above (Tests/Generators/tflite_reference.py,
# with ai-edge-litert, numpy and pillow pinned by version and SHA-256 in Tests/Generators/requirements-tflite.txt,
# installed under out/).
TFLITE_PYDEPS := out/tflite-pydeps
neural-reference: models
	@[ -f $(TFLITE_PYDEPS)/.complete ] || { rm -rf $(TFLITE_PYDEPS) && python3 -m pip install -q --no-deps --require-hashes \
	    --only-binary=:all: --target $(TFLITE_PYDEPS) -r Tests/Generators/requirements-tflite.txt && touch $(TFLITE_PYDEPS)/.complete; }
	PYTHONPATH=$(TFLITE_PYDEPS) python3 Tests/Generators/tflite_reference.py $(MP_MODELS) ../shared/samples/kodak24/kodim04.png Tests/NeuralReference

# Regenerate Profiles/*.icc (lcms2) and Samples/*.dng (our DNG writer).
profiles: build
	$(BIN) profiles --write-icc Profiles

samples: build
	$(BIN) make-samples -o Samples

# Regenerate the README's pictures (Samples/*.png, renders of our synthetic scenes; ReadmePictureTests
# checks the committed ones against fresh renders in every `make test`; CompareReadmePictureTests, which
# the same filter runs, rewrites compare's example Samples/compare-ab.svg and compare-swatches.png).
pictures: deps swift
	DARKROOM_WRITE_PICTURES=1 $(SWIFT) test --filter 'Readme(Photo)?PictureTests'

# The synthetic flash/no-flash DNG pairs of `darkroom constant-colour`'s tests (Tests/ConstantColourPairs,
# see its README.md): Tests/Generators/constant_colour_pairs.py with colour-science, tifffile and their
# dependencies pinned by version and SHA-256 (Tests/Generators/requirements.txt), installed under out/.
CC_PYDEPS := out/constant-colour-pydeps
constant-colour-pairs:
	@python3 -m pip --version >/dev/null 2>&1 || { echo "make: installing python3-pip"; $(SUDO) apt-get update -q \
	    && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q python3-pip; }
	@[ -f $(CC_PYDEPS)/.complete ] || { rm -rf $(CC_PYDEPS) && python3 -m pip install -q --no-deps --require-hashes \
	    --only-binary=:all: --target $(CC_PYDEPS) -r Tests/Generators/requirements.txt && touch $(CC_PYDEPS)/.complete; }
	PYTHONPATH=$(CC_PYDEPS) python3 -W ignore Tests/Generators/constant_colour_pairs.py Tests/ConstantColourPairs

# constant-colour's README material: the picture Samples/constant-colour.png (ambient render | constant
# colour | confidence map; ConstantColourPictureTests checks the committed one in every `make test`) and
# the ΔE2000 table by flash/ambient ratio with the Spearman and validation numbers (printed by the tests).
constant-colour-picture: deps swift
	DARKROOM_WRITE_PICTURES=1 $(SWIFT) test --filter ConstantColourPictureTests

constant-colour-table: deps swift
	$(SWIFT) test --filter 'ConstantColourTests' 2>&1 | grep 'constant-colour:' | sort

clean:
	rm -rf .build .build-release-tests .build-fuzz out

# Semantic-matte reference data (issue 18): MediaPipe 0.10.21's own Python solutions (selfie
# segmentation, short-range face detection, face mesh) on the 24 Kodak images, written to
# Tests/NeuralReference/mediapipe/ (committed; see its README.md). The packages are pinned by version
# and SHA-256 in Tests/Generators/mediapipe_requirements.txt and installed into a venv under out/;
# nothing here runs at Darkroom's run time or in `make test`.
MP_VENV := out/mediapipe-venv
.PHONY: mediapipe-reference
mediapipe-reference:
	@[ -f $(MP_VENV)/.complete ] || { rm -rf $(MP_VENV) && python3 -m venv $(MP_VENV) \
	    && $(MP_VENV)/bin/pip install -q --no-deps --require-hashes --only-binary=:all: \
	       -r Tests/Generators/mediapipe_requirements.txt && touch $(MP_VENV)/.complete; }
	$(MP_VENV)/bin/python -W ignore Tests/Generators/mediapipe_reference.py ../shared/samples/kodak24 Tests/NeuralReference/mediapipe

# ---- Installing, packaging and the generated references ------------------------------------------
# The test targets also install the test-only tools (TEST_PACKAGES).
test test-build test-fast: test-deps

# build_info.h: the commit `darkroom --version` names (Sources/CShims/build_info.c; "unknown" without
# git or outside a checkout). Rewritten only when the commit changes, so a rebuild relinks, no more.
BUILD_INFO := Sources/CShims/build_info.h
.PHONY: build-info install deb docs test-deps clean-deb
build: build-info
build-info:
	@commit=$$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown); \
	line="#define DARKROOM_COMMIT \"$$commit\""; \
	if [ "$$(cat $(BUILD_INFO) 2>/dev/null)" != "$$line" ]; then \
	    [ -f $(BUILD_INFO) ] || touch Sources/CShims/build_info.c; echo "$$line" > $(BUILD_INFO); fi

# The generated references (docs/cli/*.md, docs/recipe-keys.md, man/*.1, completions/*) from the argument
# parser and the recipe schema; GeneratedDocsTests fails when the committed ones are stale.
docs: build
	$(BIN) generate-docs .

# make install PREFIX=/usr/local DESTDIR=: the binary in PREFIX/bin; its data (the MediaPipe models, the
# ICC and camera profiles) in PREFIX/share/darkroom, where the binary looks beside itself
# (../share/darkroom from its resolved path) from any working directory; man pages; bash, zsh and fish
# completions. INSTALL_BIN=path installs another build of darkroom.
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_BIN ?= $(BIN)
install: $(if $(filter $(BIN),$(INSTALL_BIN)),build,models)
	@test -x $(INSTALL_BIN) || { echo "make: $(INSTALL_BIN) not built"; exit 1; }
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/darkroom/models $(DESTDIR)$(PREFIX)/share/darkroom/profiles \
	    $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	    $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d \
	    $(DESTDIR)$(PREFIX)/share/doc/darkroom
	install -m 755 -s $(INSTALL_BIN) $(DESTDIR)$(PREFIX)/bin/darkroom
	install -m 644 $(MP_MODELS)/*.tflite $(DESTDIR)$(PREFIX)/share/darkroom/models/
	install -m 644 Profiles/* $(DESTDIR)$(PREFIX)/share/darkroom/profiles/
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 completions/darkroom.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/darkroom
	install -m 644 completions/_darkroom $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_darkroom
	install -m 644 completions/darkroom.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/darkroom.fish
	install -m 644 README.md $(DESTDIR)$(PREFIX)/share/doc/darkroom/
	install -m 644 Models/README.md $(DESTDIR)$(PREFIX)/share/doc/darkroom/MODELS.md
	cp -r docs $(DESTDIR)$(PREFIX)/share/doc/darkroom/

# make deb: out/darkroom_VERSION_ARCH.deb (dpkg-deb), installing to /usr. The binary is linked with the Swift
# runtime and Foundation statically (--static-swift-stdlib: no toolchain needed on the target machine)
# in its own scratch folder, .build-deb (the static runtime changes every module's compile flags, so
# sharing .build with `make build` would rebuild everything on each switch). Its Depends are the Debian 12
# runtime packages of the libraries it links directly (readelf NEEDED → ldd path → dpkg -S, >= the version
# built against), plus lensfun's database. DEB_SCRATCH / DEB_BUILD_FLAGS: another scratch folder and flags.
DEB_SCRATCH ?= .build-deb
DEB_BUILD_FLAGS ?=
DEB_VERSION := $(shell sed -n 's/.*static let string = "\(.*\)"/\1/p' Sources/DarkroomCore/DarkroomVersion.swift)
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_ROOT := out/deb/darkroom
DEB := out/darkroom_$(DEB_VERSION)_$(DEB_ARCH).deb
deb: deps swift models build-info
	$(SWIFT) build -c release --product darkroom --static-swift-stdlib --scratch-path $(DEB_SCRATCH) $(DEB_BUILD_FLAGS)
	rm -rf $(DEB_ROOT) && mkdir -p $(DEB_ROOT)/DEBIAN
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(CURDIR)/$(DEB_ROOT) INSTALL_BIN=$(CURDIR)/$(DEB_SCRATCH)/release/darkroom
	@bin=$(DEB_ROOT)/usr/bin/darkroom; \
	libs=$$(for n in $$(readelf -d $$bin | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do \
	    ldd $$bin | awk -v n=$$n '$$1 == n { print $$3 }'; done); \
	missing=$$(for lib in $$libs; do dpkg -S "$$(readlink -f $$lib)" >/dev/null 2>&1 || dpkg -S "$$lib" >/dev/null 2>&1 || echo $$lib; done); \
	if [ -n "$$missing" ]; then echo "make: libraries no Debian package owns (not packaged):" $$missing; exit 1; fi; \
	deps=$$(for lib in $$libs; do dpkg -S "$$(readlink -f $$lib)" 2>/dev/null || dpkg -S "$$lib" 2>/dev/null; done \
	    | cut -d: -f1 | sort -u | while read -r p; do \
	        v=$$(dpkg-query -W -f='$${Version}' $$p | sed 's/-[^-]*$$//'); echo "$$p (>= $$v)"; done | paste -sd, | sed 's/,/, /g'); \
	printf '%s\n' "Package: darkroom" "Version: $(DEB_VERSION)" "Architecture: $(DEB_ARCH)" \
	    "Maintainer: Darkroom developers <darkroom@localhost>" "Section: graphics" "Priority: optional" \
	    "Depends: $$deps, liblensfun-data-v1" "Installed-Size: $$(du -sk $(DEB_ROOT)/usr | cut -f1)" \
	    "Description: batch RAW/DNG development engine" \
	    " Develops camera RAW and DNG files into colour-managed JPEG, HEIF, TIFF, DNG and OpenEXR," \
	    " with a JSON report per batch, neural mattes, profile comparison and fitting." > $(DEB_ROOT)/DEBIAN/control
	dpkg-deb --root-owner-group --build $(DEB_ROOT) $(DEB)
	@cat $(DEB_ROOT)/DEBIAN/control

clean: clean-deb
clean-deb:
	rm -rf .build-deb out/deb

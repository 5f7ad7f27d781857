function __darkroom_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __darkroom_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __darkroom_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __darkroom_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __darkroom_parse_tokens -S
    set -l unparsed_tokens (__darkroom_tokens -pc)
    switch $unparsed_tokens[1]
    case 'darkroom'
        __darkroom_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'develop'
            __darkroom_parse_subcommand -r 1 'o/output=' 'r/recursive' 'overwrite' 'retry-failed' 'jobs=' 'memory=' 'shard=' 'report=' 'timeout=' 'stage=' 'log=' 'q/quiet' 'recipe=' 'format=' 'quality=' 'chroma=' 'nclx' 'no-nclx' 'strip-metadata' 'no-strip-metadata' 'name=' 'mattes=' 'matte=+' 'color-space=' 'demosaic=' 'wb=' 'wb-rect=' 'wb-gains=' 'profile=' 'profile-name=' 'profile-look' 'no-profile-look' 'gamut=' 'highlights=' 'noise-reduction=' 'sharpen=' 'lens=' 'exposure=' 'baseline-exposure' 'no-baseline-exposure' 'look=' 'tone=' 'tone-shoulder=' 'bit-depth=' 'dither' 'no-dither' 'crop' 'no-crop' 'orientation' 'no-orientation' 'opcodes=' 'thumbnail-size=' 'tile-size=' 'threads=' 'bayer=' 'bits=' 'size=' 'black=' 'white=' 'stride=' 'version' 'h/help'
        case 'thumbnail'
            __darkroom_parse_subcommand -r 1 'o/output=' 'size=' 'overwrite' 'q/quiet' 'version' 'h/help'
        case 'recipe'
            __darkroom_parse_subcommand 0 'print' 'recipe=' 'format=' 'quality=' 'chroma=' 'nclx' 'no-nclx' 'strip-metadata' 'no-strip-metadata' 'name=' 'mattes=' 'matte=+' 'color-space=' 'demosaic=' 'wb=' 'wb-rect=' 'wb-gains=' 'profile=' 'profile-name=' 'profile-look' 'no-profile-look' 'gamut=' 'highlights=' 'noise-reduction=' 'sharpen=' 'lens=' 'exposure=' 'baseline-exposure' 'no-baseline-exposure' 'look=' 'tone=' 'tone-shoulder=' 'bit-depth=' 'dither' 'no-dither' 'crop' 'no-crop' 'orientation' 'no-orientation' 'opcodes=' 'thumbnail-size=' 'tile-size=' 'threads=' 'bayer=' 'bits=' 'size=' 'black=' 'white=' 'stride=' 'version' 'h/help'
        case 'info'
            __darkroom_parse_subcommand -r 1 'json' 'stats' 'bayer=' 'bits=' 'size=' 'black=' 'white=' 'stride=' 'version' 'h/help'
        case 'explain'
            __darkroom_parse_subcommand 1 'recipe=' 'color-space=' 'demosaic=' 'wb=' 'wb-rect=' 'wb-gains=' 'profile=' 'profile-name=' 'profile-look' 'no-profile-look' 'gamut=' 'highlights=' 'noise-reduction=' 'sharpen=' 'lens=' 'exposure=' 'baseline-exposure' 'no-baseline-exposure' 'look=' 'tone=' 'tone-shoulder=' 'bit-depth=' 'dither' 'no-dither' 'crop' 'no-crop' 'orientation' 'no-orientation' 'opcodes=' 'thumbnail-size=' 'tile-size=' 'threads=' 'bayer=' 'bits=' 'size=' 'black=' 'white=' 'stride=' 'version' 'h/help'
        case 'profiles'
            __darkroom_parse_subcommand -r 1 'profiles-dir=+' 'write-icc=' 'version' 'h/help'
        case 'make-samples'
            __darkroom_parse_subcommand 0 'o/output=' 'version' 'h/help'
        case 'convert'
            __darkroom_parse_subcommand -r 1 'o/output=' 'r/recursive' 'compression=' 'preview=' 'jobs=' 'verify=' 'embed-original' 'report=' 'overwrite' 'memory=' 'timeout=' 'shard=' 'q/quiet' 'version' 'h/help'
        case 'verify'
            __darkroom_parse_subcommand -r 1 'original=' 'version' 'h/help'
        case 'extract'
            __darkroom_parse_subcommand -r 1 'o/output=' 'overwrite' 'version' 'h/help'
        case 'compare'
            __darkroom_parse_subcommand -r 1 'profile=+' 'reference=' 'chart=' 'illuminant=+' 'normalise=' 'o/output=' 'overwrite' 'threads=' 'version' 'h/help'
        case 'constant-colour'
            __darkroom_parse_subcommand 0 'ambient=' 'flash=' 'pairs=' 'recipe=' 'o/output=' 'explain' 'flash-profile=' 'flash-xy=' 'flash-spectrum=' 'format=' 'fallback=' 'min-confidence=' 'max-shift=' 'bits=' 'threads=' 'overwrite' 'version' 'h/help'
        case 'profile'
            __darkroom_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'fit'
                __darkroom_parse_subcommand -r 1 'reference=' 'illuminant=+' 'chart=' 'name=' 'least-squares-only' 'hue-sat-map' 'no-forward-matrix' 'o/output=' 'overwrite' 'threads=' 'version' 'h/help'
            end
        case 'report'
            __darkroom_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'merge'
                __darkroom_parse_subcommand -r 1 'o/output=' 'q/quiet' 'version' 'h/help'
            end
        case 'help'
            __darkroom_parse_subcommand -r 1 'version'
        end
    end
end

function __darkroom_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __darkroom_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __darkroom_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __darkroom_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__darkroom_tokens -p)
    if test -z "$(__darkroom_tokens -t)"
        set -l index (count (__darkroom_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'darkroom' -f
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'develop' -d 'Develop RAW/DNG files (or Bayer dumps) into JPEG, HEIF or TIFF, in batches.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'thumbnail' -d 'Extract each file\'s largest embedded preview as DIR/NAME.jpg (fast contact sheets).'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'recipe' -d 'Show the effective recipe (defaults ← recipe file ← flags) as a YAML recipe file.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'info' -d 'Print the decoded metadata of RAW/DNG files (or what is inside a JPEG/HEIF/TIFF we wrote).'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'explain' -d 'Print the develop plan for a file: every stage with its resolved numbers.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'profiles' -d 'List the camera profiles a RAW file offers, or write the output-space ICC profiles.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'make-samples' -d 'Write the synthetic colour-chart DNGs (4 CFA orders, 12/14-bit, D65 and A) to a directory.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'convert' -d 'Convert RAW files to DNG holding exactly the camera\'s stored values, verified after writing.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'verify' -d 'Check DNGs: decode every stored sample, recompute RawImageDigest/NewRawImageDigest (and OriginalRawFileDigest).'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'extract' -d 'Write the original RAW embedded in each DNG (OriginalRawFileData) back to DIR, byte for byte.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'compare' -d 'Measure a ColorChecker 24 through camera profiles and report ΔE2000 per patch and per profile.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'constant-colour' -d 'The materials\' colour under D65 from a flash / no-flash pair, with a confidence map.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'profile' -d 'Camera-profile tools: fit a DNG camera profile (.dcp) to chart shots.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'report' -d 'Work with the JSON reports of develop and convert (merge the reports of a sharded job).'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" o output' -s 'o' -l 'output' -d 'Output directory (created if missing).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" r recursive' -l 'recursive' -s 'r' -d 'Descend into sub-directories of directory inputs.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" overwrite' -l 'overwrite' -d 'Replace existing outputs and redo everything, even up-to-date files.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" retry-failed' -l 'retry-failed' -d 'Retry inputs that failed before with the same content and recipe.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" jobs' -l 'jobs' -d 'Files developed at once. Values: 1…1024. Default: one per core.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" memory' -l 'memory' -d 'Memory budget for all files in flight, e.g. 4G or 512M. Values: bytes with an optional K, M, G or T suffix (binary), 1 byte … 1 EiB. Default: half the physical memory.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" shard' -l 'shard' -d 'Develop only shard K of N (1-based), chosen by a hash of each input\'s path relative to its input root; auto takes K/N from a SLURM array task, auto/N takes K from JOB_COMPLETION_INDEX (Kubernetes) or PARALLEL_SEQ (GNU parallel). Values: 1 ≤ K ≤ N, or auto / auto/N (from SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or PARALLEL_SEQ). Default: none (every input).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" report' -l 'report' -d 'Write a JSON report of every file\'s result to this path.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" timeout' -l 'timeout' -d 'Per-file time limit; a file\'s worker process is killed after it (0: none).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" stage' -l 'stage' -d 'Instead of developing, write each input\'s stage image as the DNG SDK\'s dng_validate -1/-2/-3 defines it, as a 16-bit TIFF OUTDIR/NAME.stageN.tif: 1 the stored values, 2 linearised to 0…65535 with OpcodeList1 and OpcodeList2 applied and ActiveArea cropped, 3 demosaiced camera RGB (--demosaic) with OpcodeList3. Inputs must be files.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" log' -l 'log' -d 'Log style: auto (progress line on a terminal, else json), progress, json (one object per event on stderr), text.' -rfka 'auto progress json text'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" recipe' -l 'recipe' -d 'Recipe file (YAML; keys and values: `darkroom recipe --help`). Flags override its values.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" format' -l 'format' -d 'Output formats (comma-separated, or a YAML list); several formats come from one decode and render. exr: OpenEXR, linear float (half; float32 with --bit-depth 32) with its chromaticities. Recorded per output, not in the recipe hash. Values: a list of jpeg, heif, tiff, exr (or jpg, heic, tif). Default: jpeg.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" quality' -l 'quality' -d 'Encoder quality. Values: 1…100. Default: JPEG 90, HEIF 50 (x265 preset ultrafast, comparable to JPEG 90).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" chroma' -l 'chroma' -d 'HEIF chroma subsampling: 420 (HEVC Main, as iPhones write; every decoder) or 444 (more colour detail per byte, HEVC RExt). Values: 444 | 420. Default: 420.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" nclx' -l 'nclx' -d 'HEIF: also write an nclx colour box beside the ICC profile (sRGB and Display P3 only; iOS 12 rejects both). Default: false.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" no-nclx' -l 'no-nclx' -d 'HEIF: also write an nclx colour box beside the ICC profile (sRGB and Display P3 only; iOS 12 rejects both). Default: false.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" strip-metadata' -l 'strip-metadata' -d 'Write no EXIF/XMP/thumbnail (the ICC profile is always embedded). Default: false.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" no-strip-metadata' -l 'no-strip-metadata' -d 'Write no EXIF/XMP/thumbnail (the ICC profile is always embedded). Default: false.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" name' -l 'name' -d 'Output name template below OUTDIR. Values: text with {stem} {ext} {dir} {camera} {make} {model} {date} {time} {seq}. Default: \'{dir}/{stem}\'.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" mattes' -l 'mattes' -d 'Mattes to compute and embed (comma-separated, or a YAML list); portrait, skin, teeth, lips by neural segmentation (`make models`). Values: a list of portrait, skin, teeth, lips, gamut, clipping, skin-color. Default: none.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop"' -l 'matte' -d 'Mattes supplied as 8-bit PNGs. Values: KIND=FILE.png (flag, repeatable) or {KIND: FILE.png} (recipe file). Default: none. Repeatable.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" color-space' -l 'color-space' -d 'Output colour space and encoding. Values: srgb | srgb-linear | p3 | p3-linear | rec2020 | rec2020-linear | adobergb | adobergb-linear | prophoto | prophoto-linear. Default: srgb.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" demosaic' -l 'demosaic' -d 'Demosaic algorithm. Values: bilinear | malvar | rcd | gbtf | ahd | mlri | hybrid | msg | adaptive | msgd | adaptive-ri. Default: adaptive-ri.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" wb' -l 'wb' -d 'White balance: as-shot/camera (the file\'s AsShotNeutral or AsShotWhiteXY), auto (iterative grey world on near-neutral, unclipped samples), a preset (Camera Raw\'s temperatures, solved through the camera profile), KELVIN[,TINT] (e.g. 5500 or 5500,+10), or a white chromaticity xy:X,Y. Values: as-shot | camera | auto | daylight | cloudy | shade | tungsten | fluorescent | flash | KELVIN[,TINT] (1700…100000 K, tint −150…150) | xy:X,Y. Default: as-shot.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" wb-rect' -l 'wb-rect' -d 'White balance from a neutral patch x,y,w,h in displayed-image pixels (after DefaultCrop and orientation); a patch outside the image fails that file. Values: integers x,y ≥ 0, w,h ≥ 1, inside the displayed image. Default: none.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" wb-gains' -l 'wb-gains' -d 'White balance as channel gains r,g,b (any scale). Values: three positive numbers. Default: none.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" profile' -l 'profile' -d 'Camera profile (.dcp) to use instead of the file\'s own. Values: a .dcp file (\'\' = none). Default: the file\'s own profile, or a .dcp in Profiles/ matching its UniqueCameraModel.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" profile-name' -l 'profile-name' -d 'Use the embedded camera profile with this ProfileName (see `darkroom profiles FILE`). Values: a ProfileName the file embeds. Default: the first embedded profile.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" profile-look' -l 'profile-look' -d 'Apply the profile\'s HueSatMap/LookTable/ProfileToneCurve. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" no-profile-look' -l 'no-profile-look' -d 'Apply the profile\'s HueSatMap/LookTable/ProfileToneCurve. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" gamut' -l 'gamut' -d 'Gamut mapping: preserve-hue desaturates out-of-gamut colours toward their luminance; clip clips each channel. Values: preserve-hue | clip. Default: preserve-hue.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" highlights' -l 'highlights' -d 'Clipped highlights: reconstruct rebuilds clipped channels from the unclipped ones (hue kept); clip runs them to white as the DNG SDK does. Values: clip | reconstruct. Default: reconstruct.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" noise-reduction' -l 'noise-reduction' -d 'Noise reduction: auto (from the file\'s NoiseProfile, else the noise estimated from the image when its colours agree; nothing where the noise is invisible), off, or luminance[,chroma] strengths in units of the noise model (1 = the model; the NoiseProfile, else the noise estimated from the image). Values: auto | off | LUMA[,CHROMA] (0…4). Default: auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" sharpen' -l 'sharpen' -d 'Capture sharpening on luminance, gated so noise is not amplified: auto (amount 0.4, radius 1), off, or AMOUNT[,RADIUS]. Values: auto | off | AMOUNT[,RADIUS] (0…3, 1…3 px). Default: auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" lens' -l 'lens' -d 'Lens corrections from the lensfun database: auto (distortion, TCA and vignetting when the database has the camera and lens; not for a DNG whose opcodes already correct it), off, or a list such as distortion,tca. Values: auto | off | LIST of distortion, tca, vignetting. Default: auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" exposure' -l 'exposure' -d 'Exposure in stops, added to the file\'s BaselineExposure. Values: -10…10. Default: 0.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" baseline-exposure' -l 'baseline-exposure' -d 'Apply BaselineExposure / BaselineExposureOffset. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" no-baseline-exposure' -l 'no-baseline-exposure' -d 'Apply BaselineExposure / BaselineExposureOffset. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" look' -l 'look' -d 'Picture look: reference (the DNG SDK\'s render, as Adobe software shows a DNG: its default tone curve, exposure ramp and RGB tone) or darkroom (Darkroom\'s curve with the --tone-shoulder highlight shoulder and the profile\'s HueSatMap/LookTable). Values: reference | darkroom. Default: reference.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" tone' -l 'tone' -d 'Tone curve: auto (the look\'s), linear (pure colorimetric render: no curve, no look), reference or standard (the reference or darkroom look\'s curve, whatever --look says). Values: auto | standard | linear | reference. Default: auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" tone-shoulder' -l 'tone-shoulder' -d 'Shoulder b of the standard tone curve y = (1+b)x/(x+b): smaller compresses highlights harder and lifts mid-tones more (b = 2: mid-grey 0.18 → 0.248), larger approaches linear. Values: 0.25…64. Default: 2.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" bit-depth' -l 'bit-depth' -d 'Bits per sample for TIFF/HEIF output (JPEG is always 8). 32: float TIFF, linear (the render before its transfer function and quantisation, in the colour space\'s linear variant, not clipped; the tone curve as --tone says: linear for numerical work). EXR is half unless 32. Values: 8 | 16 | 32. Default: 8.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" dither' -l 'dither' -d 'Dither 8-bit output (false rounds to nearest). Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" no-dither' -l 'no-dither' -d 'Dither 8-bit output (false rounds to nearest). Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" crop' -l 'crop' -d 'Apply DefaultCrop. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" no-crop' -l 'no-crop' -d 'Apply DefaultCrop. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" orientation' -l 'orientation' -d 'Apply the file\'s Orientation to the pixels (outputs are written with Orientation 1). Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" no-orientation' -l 'no-orientation' -d 'Apply the file\'s Orientation to the pixels (outputs are written with Orientation 1). Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" opcodes' -l 'opcodes' -d 'DNG opcode lists to apply (OpcodeList1/2/3). Values: all | none | a list of list1, list2, list3. Default: all.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" thumbnail-size' -l 'thumbnail-size' -d 'Long side of the embedded thumbnail in pixels (0 = none; never larger than the image). Values: 0…65535. Default: 320.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" tile-size' -l 'tile-size' -d 'Tile edge in pixels. Values: 16…8192. Default: 256. Changes speed, never output.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" threads' -l 'threads' -d 'Worker threads per image. Values: 0…1024. Default: 0 (cores ÷ files in flight). Changes speed, never output.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" bayer' -l 'bayer' -d 'Read inputs as headerless Bayer dumps (16-bit little-endian samples) with this CFA order. Values: rggb | grbg | bggr | gbrg. Default: none (files are RAW/DNG).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" bits' -l 'bits' -d 'Bayer dump: significant bits per sample. Values: 8…16. Default: 14.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" size' -l 'size' -d 'Bayer dump: image size WIDTHxHEIGHT. Values: 16…65535 per side. Default: none (required with --bayer).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" black' -l 'black' -d 'Bayer dump: black level in sensor units. Values: 0…65534. Default: 0.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" white' -l 'white' -d 'Bayer dump: white level in sensor units. Values: 1…65535, above --black. Default: 2^bits − 1.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" stride' -l 'stride' -d 'Bayer dump: bytes per row (≥ width × 2; larger values skip row padding). Values: 32…2147483648. Default: width × 2.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom develop" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom thumbnail" o output' -s 'o' -l 'output' -d 'Output directory (created if missing).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom thumbnail" size' -l 'size' -d 'Long side of the fallback render in pixels.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom thumbnail" overwrite' -l 'overwrite' -d 'Replace existing outputs.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom thumbnail" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom thumbnail" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom thumbnail" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" print' -l 'print' -d 'Print the effective recipe (the default action).'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" recipe' -l 'recipe' -d 'Recipe file (YAML; keys and values: `darkroom recipe --help`). Flags override its values.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" format' -l 'format' -d 'Output formats (comma-separated, or a YAML list); several formats come from one decode and render. exr: OpenEXR, linear float (half; float32 with --bit-depth 32) with its chromaticities. Recorded per output, not in the recipe hash. Values: a list of jpeg, heif, tiff, exr (or jpg, heic, tif). Default: jpeg.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" quality' -l 'quality' -d 'Encoder quality. Values: 1…100. Default: JPEG 90, HEIF 50 (x265 preset ultrafast, comparable to JPEG 90).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" chroma' -l 'chroma' -d 'HEIF chroma subsampling: 420 (HEVC Main, as iPhones write; every decoder) or 444 (more colour detail per byte, HEVC RExt). Values: 444 | 420. Default: 420.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" nclx' -l 'nclx' -d 'HEIF: also write an nclx colour box beside the ICC profile (sRGB and Display P3 only; iOS 12 rejects both). Default: false.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" no-nclx' -l 'no-nclx' -d 'HEIF: also write an nclx colour box beside the ICC profile (sRGB and Display P3 only; iOS 12 rejects both). Default: false.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" strip-metadata' -l 'strip-metadata' -d 'Write no EXIF/XMP/thumbnail (the ICC profile is always embedded). Default: false.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" no-strip-metadata' -l 'no-strip-metadata' -d 'Write no EXIF/XMP/thumbnail (the ICC profile is always embedded). Default: false.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" name' -l 'name' -d 'Output name template below OUTDIR. Values: text with {stem} {ext} {dir} {camera} {make} {model} {date} {time} {seq}. Default: \'{dir}/{stem}\'.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" mattes' -l 'mattes' -d 'Mattes to compute and embed (comma-separated, or a YAML list); portrait, skin, teeth, lips by neural segmentation (`make models`). Values: a list of portrait, skin, teeth, lips, gamut, clipping, skin-color. Default: none.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe"' -l 'matte' -d 'Mattes supplied as 8-bit PNGs. Values: KIND=FILE.png (flag, repeatable) or {KIND: FILE.png} (recipe file). Default: none. Repeatable.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" color-space' -l 'color-space' -d 'Output colour space and encoding. Values: srgb | srgb-linear | p3 | p3-linear | rec2020 | rec2020-linear | adobergb | adobergb-linear | prophoto | prophoto-linear. Default: srgb.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" demosaic' -l 'demosaic' -d 'Demosaic algorithm. Values: bilinear | malvar | rcd | gbtf | ahd | mlri | hybrid | msg | adaptive | msgd | adaptive-ri. Default: adaptive-ri.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" wb' -l 'wb' -d 'White balance: as-shot/camera (the file\'s AsShotNeutral or AsShotWhiteXY), auto (iterative grey world on near-neutral, unclipped samples), a preset (Camera Raw\'s temperatures, solved through the camera profile), KELVIN[,TINT] (e.g. 5500 or 5500,+10), or a white chromaticity xy:X,Y. Values: as-shot | camera | auto | daylight | cloudy | shade | tungsten | fluorescent | flash | KELVIN[,TINT] (1700…100000 K, tint −150…150) | xy:X,Y. Default: as-shot.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" wb-rect' -l 'wb-rect' -d 'White balance from a neutral patch x,y,w,h in displayed-image pixels (after DefaultCrop and orientation); a patch outside the image fails that file. Values: integers x,y ≥ 0, w,h ≥ 1, inside the displayed image. Default: none.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" wb-gains' -l 'wb-gains' -d 'White balance as channel gains r,g,b (any scale). Values: three positive numbers. Default: none.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" profile' -l 'profile' -d 'Camera profile (.dcp) to use instead of the file\'s own. Values: a .dcp file (\'\' = none). Default: the file\'s own profile, or a .dcp in Profiles/ matching its UniqueCameraModel.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" profile-name' -l 'profile-name' -d 'Use the embedded camera profile with this ProfileName (see `darkroom profiles FILE`). Values: a ProfileName the file embeds. Default: the first embedded profile.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" profile-look' -l 'profile-look' -d 'Apply the profile\'s HueSatMap/LookTable/ProfileToneCurve. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" no-profile-look' -l 'no-profile-look' -d 'Apply the profile\'s HueSatMap/LookTable/ProfileToneCurve. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" gamut' -l 'gamut' -d 'Gamut mapping: preserve-hue desaturates out-of-gamut colours toward their luminance; clip clips each channel. Values: preserve-hue | clip. Default: preserve-hue.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" highlights' -l 'highlights' -d 'Clipped highlights: reconstruct rebuilds clipped channels from the unclipped ones (hue kept); clip runs them to white as the DNG SDK does. Values: clip | reconstruct. Default: reconstruct.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" noise-reduction' -l 'noise-reduction' -d 'Noise reduction: auto (from the file\'s NoiseProfile, else the noise estimated from the image when its colours agree; nothing where the noise is invisible), off, or luminance[,chroma] strengths in units of the noise model (1 = the model; the NoiseProfile, else the noise estimated from the image). Values: auto | off | LUMA[,CHROMA] (0…4). Default: auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" sharpen' -l 'sharpen' -d 'Capture sharpening on luminance, gated so noise is not amplified: auto (amount 0.4, radius 1), off, or AMOUNT[,RADIUS]. Values: auto | off | AMOUNT[,RADIUS] (0…3, 1…3 px). Default: auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" lens' -l 'lens' -d 'Lens corrections from the lensfun database: auto (distortion, TCA and vignetting when the database has the camera and lens; not for a DNG whose opcodes already correct it), off, or a list such as distortion,tca. Values: auto | off | LIST of distortion, tca, vignetting. Default: auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" exposure' -l 'exposure' -d 'Exposure in stops, added to the file\'s BaselineExposure. Values: -10…10. Default: 0.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" baseline-exposure' -l 'baseline-exposure' -d 'Apply BaselineExposure / BaselineExposureOffset. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" no-baseline-exposure' -l 'no-baseline-exposure' -d 'Apply BaselineExposure / BaselineExposureOffset. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" look' -l 'look' -d 'Picture look: reference (the DNG SDK\'s render, as Adobe software shows a DNG: its default tone curve, exposure ramp and RGB tone) or darkroom (Darkroom\'s curve with the --tone-shoulder highlight shoulder and the profile\'s HueSatMap/LookTable). Values: reference | darkroom. Default: reference.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" tone' -l 'tone' -d 'Tone curve: auto (the look\'s), linear (pure colorimetric render: no curve, no look), reference or standard (the reference or darkroom look\'s curve, whatever --look says). Values: auto | standard | linear | reference. Default: auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" tone-shoulder' -l 'tone-shoulder' -d 'Shoulder b of the standard tone curve y = (1+b)x/(x+b): smaller compresses highlights harder and lifts mid-tones more (b = 2: mid-grey 0.18 → 0.248), larger approaches linear. Values: 0.25…64. Default: 2.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" bit-depth' -l 'bit-depth' -d 'Bits per sample for TIFF/HEIF output (JPEG is always 8). 32: float TIFF, linear (the render before its transfer function and quantisation, in the colour space\'s linear variant, not clipped; the tone curve as --tone says: linear for numerical work). EXR is half unless 32. Values: 8 | 16 | 32. Default: 8.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" dither' -l 'dither' -d 'Dither 8-bit output (false rounds to nearest). Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" no-dither' -l 'no-dither' -d 'Dither 8-bit output (false rounds to nearest). Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" crop' -l 'crop' -d 'Apply DefaultCrop. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" no-crop' -l 'no-crop' -d 'Apply DefaultCrop. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" orientation' -l 'orientation' -d 'Apply the file\'s Orientation to the pixels (outputs are written with Orientation 1). Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" no-orientation' -l 'no-orientation' -d 'Apply the file\'s Orientation to the pixels (outputs are written with Orientation 1). Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" opcodes' -l 'opcodes' -d 'DNG opcode lists to apply (OpcodeList1/2/3). Values: all | none | a list of list1, list2, list3. Default: all.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" thumbnail-size' -l 'thumbnail-size' -d 'Long side of the embedded thumbnail in pixels (0 = none; never larger than the image). Values: 0…65535. Default: 320.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" tile-size' -l 'tile-size' -d 'Tile edge in pixels. Values: 16…8192. Default: 256. Changes speed, never output.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" threads' -l 'threads' -d 'Worker threads per image. Values: 0…1024. Default: 0 (cores ÷ files in flight). Changes speed, never output.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" bayer' -l 'bayer' -d 'Read inputs as headerless Bayer dumps (16-bit little-endian samples) with this CFA order. Values: rggb | grbg | bggr | gbrg. Default: none (files are RAW/DNG).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" bits' -l 'bits' -d 'Bayer dump: significant bits per sample. Values: 8…16. Default: 14.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" size' -l 'size' -d 'Bayer dump: image size WIDTHxHEIGHT. Values: 16…65535 per side. Default: none (required with --bayer).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" black' -l 'black' -d 'Bayer dump: black level in sensor units. Values: 0…65534. Default: 0.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" white' -l 'white' -d 'Bayer dump: white level in sensor units. Values: 1…65535, above --black. Default: 2^bits − 1.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" stride' -l 'stride' -d 'Bayer dump: bytes per row (≥ width × 2; larger values skip row padding). Values: 32…2147483648. Default: width × 2.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom recipe" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom info" json' -l 'json' -d 'Print JSON instead of text.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom info" stats' -l 'stats' -d 'Also decode the pixels and print per-channel statistics of the stored values.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom info" bayer' -l 'bayer' -d 'Read inputs as headerless Bayer dumps (16-bit little-endian samples) with this CFA order. Values: rggb | grbg | bggr | gbrg. Default: none (files are RAW/DNG).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom info" bits' -l 'bits' -d 'Bayer dump: significant bits per sample. Values: 8…16. Default: 14.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom info" size' -l 'size' -d 'Bayer dump: image size WIDTHxHEIGHT. Values: 16…65535 per side. Default: none (required with --bayer).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom info" black' -l 'black' -d 'Bayer dump: black level in sensor units. Values: 0…65534. Default: 0.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom info" white' -l 'white' -d 'Bayer dump: white level in sensor units. Values: 1…65535, above --black. Default: 2^bits − 1.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom info" stride' -l 'stride' -d 'Bayer dump: bytes per row (≥ width × 2; larger values skip row padding). Values: 32…2147483648. Default: width × 2.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom info" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom info" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" recipe' -l 'recipe' -d 'Recipe file (YAML; keys and values: `darkroom recipe --help`). Flags override its values.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" color-space' -l 'color-space' -d 'Output colour space and encoding. Values: srgb | srgb-linear | p3 | p3-linear | rec2020 | rec2020-linear | adobergb | adobergb-linear | prophoto | prophoto-linear. Default: srgb.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" demosaic' -l 'demosaic' -d 'Demosaic algorithm. Values: bilinear | malvar | rcd | gbtf | ahd | mlri | hybrid | msg | adaptive | msgd | adaptive-ri. Default: adaptive-ri.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" wb' -l 'wb' -d 'White balance: as-shot/camera (the file\'s AsShotNeutral or AsShotWhiteXY), auto (iterative grey world on near-neutral, unclipped samples), a preset (Camera Raw\'s temperatures, solved through the camera profile), KELVIN[,TINT] (e.g. 5500 or 5500,+10), or a white chromaticity xy:X,Y. Values: as-shot | camera | auto | daylight | cloudy | shade | tungsten | fluorescent | flash | KELVIN[,TINT] (1700…100000 K, tint −150…150) | xy:X,Y. Default: as-shot.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" wb-rect' -l 'wb-rect' -d 'White balance from a neutral patch x,y,w,h in displayed-image pixels (after DefaultCrop and orientation); a patch outside the image fails that file. Values: integers x,y ≥ 0, w,h ≥ 1, inside the displayed image. Default: none.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" wb-gains' -l 'wb-gains' -d 'White balance as channel gains r,g,b (any scale). Values: three positive numbers. Default: none.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" profile' -l 'profile' -d 'Camera profile (.dcp) to use instead of the file\'s own. Values: a .dcp file (\'\' = none). Default: the file\'s own profile, or a .dcp in Profiles/ matching its UniqueCameraModel.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" profile-name' -l 'profile-name' -d 'Use the embedded camera profile with this ProfileName (see `darkroom profiles FILE`). Values: a ProfileName the file embeds. Default: the first embedded profile.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" profile-look' -l 'profile-look' -d 'Apply the profile\'s HueSatMap/LookTable/ProfileToneCurve. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" no-profile-look' -l 'no-profile-look' -d 'Apply the profile\'s HueSatMap/LookTable/ProfileToneCurve. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" gamut' -l 'gamut' -d 'Gamut mapping: preserve-hue desaturates out-of-gamut colours toward their luminance; clip clips each channel. Values: preserve-hue | clip. Default: preserve-hue.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" highlights' -l 'highlights' -d 'Clipped highlights: reconstruct rebuilds clipped channels from the unclipped ones (hue kept); clip runs them to white as the DNG SDK does. Values: clip | reconstruct. Default: reconstruct.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" noise-reduction' -l 'noise-reduction' -d 'Noise reduction: auto (from the file\'s NoiseProfile, else the noise estimated from the image when its colours agree; nothing where the noise is invisible), off, or luminance[,chroma] strengths in units of the noise model (1 = the model; the NoiseProfile, else the noise estimated from the image). Values: auto | off | LUMA[,CHROMA] (0…4). Default: auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" sharpen' -l 'sharpen' -d 'Capture sharpening on luminance, gated so noise is not amplified: auto (amount 0.4, radius 1), off, or AMOUNT[,RADIUS]. Values: auto | off | AMOUNT[,RADIUS] (0…3, 1…3 px). Default: auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" lens' -l 'lens' -d 'Lens corrections from the lensfun database: auto (distortion, TCA and vignetting when the database has the camera and lens; not for a DNG whose opcodes already correct it), off, or a list such as distortion,tca. Values: auto | off | LIST of distortion, tca, vignetting. Default: auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" exposure' -l 'exposure' -d 'Exposure in stops, added to the file\'s BaselineExposure. Values: -10…10. Default: 0.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" baseline-exposure' -l 'baseline-exposure' -d 'Apply BaselineExposure / BaselineExposureOffset. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" no-baseline-exposure' -l 'no-baseline-exposure' -d 'Apply BaselineExposure / BaselineExposureOffset. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" look' -l 'look' -d 'Picture look: reference (the DNG SDK\'s render, as Adobe software shows a DNG: its default tone curve, exposure ramp and RGB tone) or darkroom (Darkroom\'s curve with the --tone-shoulder highlight shoulder and the profile\'s HueSatMap/LookTable). Values: reference | darkroom. Default: reference.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" tone' -l 'tone' -d 'Tone curve: auto (the look\'s), linear (pure colorimetric render: no curve, no look), reference or standard (the reference or darkroom look\'s curve, whatever --look says). Values: auto | standard | linear | reference. Default: auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" tone-shoulder' -l 'tone-shoulder' -d 'Shoulder b of the standard tone curve y = (1+b)x/(x+b): smaller compresses highlights harder and lifts mid-tones more (b = 2: mid-grey 0.18 → 0.248), larger approaches linear. Values: 0.25…64. Default: 2.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" bit-depth' -l 'bit-depth' -d 'Bits per sample for TIFF/HEIF output (JPEG is always 8). 32: float TIFF, linear (the render before its transfer function and quantisation, in the colour space\'s linear variant, not clipped; the tone curve as --tone says: linear for numerical work). EXR is half unless 32. Values: 8 | 16 | 32. Default: 8.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" dither' -l 'dither' -d 'Dither 8-bit output (false rounds to nearest). Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" no-dither' -l 'no-dither' -d 'Dither 8-bit output (false rounds to nearest). Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" crop' -l 'crop' -d 'Apply DefaultCrop. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" no-crop' -l 'no-crop' -d 'Apply DefaultCrop. Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" orientation' -l 'orientation' -d 'Apply the file\'s Orientation to the pixels (outputs are written with Orientation 1). Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" no-orientation' -l 'no-orientation' -d 'Apply the file\'s Orientation to the pixels (outputs are written with Orientation 1). Default: true.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" opcodes' -l 'opcodes' -d 'DNG opcode lists to apply (OpcodeList1/2/3). Values: all | none | a list of list1, list2, list3. Default: all.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" thumbnail-size' -l 'thumbnail-size' -d 'Long side of the embedded thumbnail in pixels (0 = none; never larger than the image). Values: 0…65535. Default: 320.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" tile-size' -l 'tile-size' -d 'Tile edge in pixels. Values: 16…8192. Default: 256. Changes speed, never output.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" threads' -l 'threads' -d 'Worker threads per image. Values: 0…1024. Default: 0 (cores ÷ files in flight). Changes speed, never output.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" bayer' -l 'bayer' -d 'Read inputs as headerless Bayer dumps (16-bit little-endian samples) with this CFA order. Values: rggb | grbg | bggr | gbrg. Default: none (files are RAW/DNG).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" bits' -l 'bits' -d 'Bayer dump: significant bits per sample. Values: 8…16. Default: 14.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" size' -l 'size' -d 'Bayer dump: image size WIDTHxHEIGHT. Values: 16…65535 per side. Default: none (required with --bayer).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" black' -l 'black' -d 'Bayer dump: black level in sensor units. Values: 0…65534. Default: 0.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" white' -l 'white' -d 'Bayer dump: white level in sensor units. Values: 1…65535, above --black. Default: 2^bits − 1.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" stride' -l 'stride' -d 'Bayer dump: bytes per row (≥ width × 2; larger values skip row padding). Values: 32…2147483648. Default: width × 2.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom explain" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profiles"' -l 'profiles-dir' -d 'Directory searched for .dcp files (repeatable; default Profiles).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profiles" write-icc' -l 'write-icc' -d 'Write the ICC v4 profiles of every output colour space (lcms2) to this directory.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profiles" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profiles" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom make-samples" o output' -s 'o' -l 'output' -d 'Directory to write into.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom make-samples" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom make-samples" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" o output' -s 'o' -l 'output' -d 'Output directory (created if missing).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" r recursive' -l 'recursive' -s 'r' -d 'Descend into sub-directories of directory inputs.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" compression' -l 'compression' -d 'Raw data storage: ljpeg (lossless JPEG, default), jxl-lossless (lossless JPEG XL, DNG 1.7: smaller, read only by DNG 1.7 readers) or none (uncompressed).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" preview' -l 'preview' -d 'JPEG preview long side in pixels (64…8192), or none (no preview, no thumbnail).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" jobs' -l 'jobs' -d 'Files converted at once (default: 1; tiles of each file use the remaining cores).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" verify' -l 'verify' -d 'Decode the written DNG and compare every sample with the source: on or off.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" embed-original' -l 'embed-original' -d 'Embed the input file (OriginalRawFileData) for `darkroom extract`.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" report' -l 'report' -d 'Write a JSON report of every file (SHA-256s, digests, ratios, timings) to this path.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" overwrite' -l 'overwrite' -d 'Replace existing outputs.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" memory' -l 'memory' -d 'Memory budget for files in flight (e.g. 2G, 512M).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" timeout' -l 'timeout' -d 'Per-file time limit in seconds (0: none); a file over it fails with category timeout.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" shard' -l 'shard' -d 'Convert only shard K of N (1-based, by a hash of each input\'s path relative to its input root, as develop\'s --shard); auto takes K/N from a SLURM array task, auto/N takes K from JOB_COMPLETION_INDEX (Kubernetes) or PARALLEL_SEQ (GNU parallel).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom convert" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom verify" original' -l 'original' -d 'The RAW file the DNG was converted from (only with one DNG).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom verify" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom extract" o output' -s 'o' -l 'output' -d 'Output directory (created if missing).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom extract" overwrite' -l 'overwrite' -d 'Replace existing outputs.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom extract" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom extract" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom compare"' -l 'profile' -d 'A camera profile (.dcp), or \'embedded\' for the file\'s own; repeatable (default: embedded).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom compare" reference' -l 'reference' -d 'Reference colours: colorchecker24 (built-in spectra) or a CGATS .ti3/.cie/.txt file.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom compare" chart' -l 'chart' -d 'Patch-grid corners x1,y1,x2,y2,x3,y3,x4,y4 (top-left of patch 1, clockwise) in the developed image, or auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom compare"' -l 'illuminant' -d 'Scene illuminant: as-shot, A, D50, D55, D65, D75, F2, F11, a CCT (5000K) or x,y; repeatable.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom compare" normalise' -l 'normalise' -d 'Exposure normalisation of measured XYZ: none, white (white patch Y), scale (least squares).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom compare" o output' -s 'o' -l 'output' -d 'Report directory (created if missing).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom compare" overwrite' -l 'overwrite' -d 'Replace existing report files.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom compare" threads' -l 'threads' -d 'Render threads (0 = one per core); the report is the same for any value.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom compare" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom compare" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" ambient' -l 'ambient' -d 'The frame without flash (RAW/DNG).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" flash' -l 'flash' -d 'The frame with flash, same camera and framing.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" pairs' -l 'pairs' -d 'Many pairs: a CSV of \'ambient,flash[,name]\' lines (instead of --ambient/--flash).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" recipe' -l 'recipe' -d 'Settings as YAML, keys = these flags\' names; flags override it.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" o output' -s 'o' -l 'output' -d 'Output directory (created if missing).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" explain' -l 'explain' -d 'Print what the method finds for the pair (ratio, profile, registration, masks, confidence); write nothing.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" flash-profile' -l 'flash-profile' -d 'A .dcp camera profile calibrated for the flash.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" flash-xy' -l 'flash-xy' -d 'The flash\'s white chromaticity.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" flash-spectrum' -l 'flash-spectrum' -d 'The flash\'s spectrum, CSV lines \'wavelength_nm,power\'; its CIE 1931 white is used.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" format' -l 'format' -d 'Output formats, comma-separated: jpeg, heif, tiff (default jpeg).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" fallback' -l 'fallback' -d 'Also write the ordinary render of the ambient frame: auto (default; when the centre-weighted confidence is below --min-confidence), always, never.' -rfka 'auto always never'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" min-confidence' -l 'min-confidence' -d 'Centre-weighted confidence (0…1) below which --fallback auto writes the fallback (default 0.5).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" max-shift' -l 'max-shift' -d 'Largest registration shift searched, pixels (0: no registration; default 16).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" bits' -l 'bits' -d 'Bits per sample of HEIF/TIFF outputs (JPEG is 8; default 8).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" threads' -l 'threads' -d 'Worker threads (0: one per core, the default). Never changes the output bytes.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" overwrite' -l 'overwrite' -d 'Replace existing outputs.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom constant-colour" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom profile" -eq 1' -fa 'fit' -d 'Fit ColorMatrix1/2 and ForwardMatrix1/2 of a DNG camera profile to ColorChecker 24 shots under one or two illuminants.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile fit" reference' -l 'reference' -d 'Reference colours: colorchecker24 (built-in spectra) or a CGATS .ti3/.cie/.txt file.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile fit"' -l 'illuminant' -d 'Scene illuminant of the files: one for all or one per file in order (as-shot, A, D50, D55, D65, D75, F2, F11, 5000K or x,y).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile fit" chart' -l 'chart' -d 'Patch-grid corners x1,y1,…,x4,y4 in the developed image (the same for every file), or auto.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile fit" name' -l 'name' -d 'ProfileName to write (default: Darkroom fit, MODEL).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile fit" least-squares-only' -l 'least-squares-only' -d 'Skip the ΔE2000 refinement (white-preserving least squares only).'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile fit" hue-sat-map' -l 'hue-sat-map' -d 'Also fit ProfileHueSatMapData1/2 (18 hues × 3 saturations, regularised least squares on the matrices\' residual hue, saturation and value).'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile fit" no-forward-matrix' -l 'no-forward-matrix' -d 'Fit ColorMatrix1/2 only (camera → XYZ through Bradford, no ForwardMatrix): extrapolates better to far illuminants for strongly non-Luther cameras.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile fit" o output' -s 'o' -l 'output' -d 'The .dcp to write; the fit report goes next to it.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile fit" overwrite' -l 'overwrite' -d 'Replace an existing profile and report.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile fit" threads' -l 'threads' -d 'Render threads (0 = one per core); the output is the same for any value.' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile fit" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom profile fit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom report" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom report" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_positional "darkroom report" -eq 1' -fa 'merge' -d 'Merge the reports of a job\'s shards (--shard K/N or auto) into one report of the whole job.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom report merge" o output' -s 'o' -l 'output' -d 'Write the merged report here (replaced atomically; never one of the reports read).' -rfka ''
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom report merge" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but problems.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom report merge" version' -l 'version' -d 'Show the version.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom report merge" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'darkroom' -n '__darkroom_should_offer_completions_for_flags_or_options "darkroom help" version' -l 'version' -d 'Show the version.'
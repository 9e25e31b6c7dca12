# bash completion for tiledcl: commands, their options, device specs and
# file names. Installed by Meson to share/bash-completion/completions/tiledcl.
_tiledcl_devices()
{
    # the P:D pairs 'tiledcl devices' lists, then the types and pocl
    local t=${COMP_WORDS[0]}
    "$t" devices 2>/dev/null | sed -n 's/^ *[* ] \([0-9][0-9]*:[0-9][0-9]*\) .*/\1/p'
    printf '%s\n' gpu cpu accelerator pocl
}

_tiledcl()
{
    local cur prev cmd i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    local globals="--device --kernels --no-cache -v --verbose -vv -q --quiet -h --help --version"
    local commands="matmul tile-avg tile-map life convert devices bench tune"
    cmd=
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        --device | --kernels) ((i++)) ;;
        -*) ;;
        *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    case $prev in
    --device)
        COMPREPLY=($(compgen -W "$(_tiledcl_devices)" -- "$cur"))
        return ;;
    --kernels | --frames | --dir)
        COMPREPLY=($(compgen -d -- "$cur"))
        return ;;
    -t | --type)
        COMPREPLY=($(compgen -W "f32 f64 i64" -- "$cur")); return ;;
    --dtype)
        COMPREPLY=($(compgen -W "float32 float64 int32 int64" -- "$cur")); return ;;
    --precision)
        COMPREPLY=($(compgen -W "fp32 tf32 3xtf32 auto" -- "$cur")); return ;;
    -b | --boundary)
        COMPREPLY=($(compgen -W "dead torus clamp klein cross sphere" -- "$cur")); return ;;
    --variant)
        COMPREPLY=($(compgen -W "auto cpu gpu band" -- "$cur")); return ;;
    --op)
        COMPREPLY=($(compgen -W "mean sum min max median mode" -- "$cur")); return ;;
    --alpha)
        COMPREPLY=($(compgen -W "straight weighted" -- "$cur")); return ;;
    --compress)
        COMPREPLY=($(compgen -W "none deflate lzw" -- "$cur")); return ;;
    --quality)
        return ;;
    --sparse)
        COMPREPLY=($(compgen -W "auto on off" -- "$cur")); return ;;
    --plane)
        COMPREPLY=($(compgen -W "auto tiles dense" -- "$cur")); return ;;
    --window)
        return ;;
    -r | --rule)
        # B/S notation and Golly's names (matched without case or spaces)
        COMPREPLY=($(compgen -W "B3/S23 B36/S23 B2/S Life HighLife Seeds DayAndNight 34Life
            LifeWithoutDeath Diamoeba LongLife Replicator Maze Mazectric Coral DryLife" -- "$cur"))
        return ;;
    -k | --kernel)
        if [ "$cmd" = life ]; then COMPREPLY=($(compgen -W "bits bytes" -- "$cur"))
        else COMPREPLY=($(compgen -W "auto tiled cpu gpu" -- "$cur")); fi
        return ;;
    --color)
        COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
    esac
    local opts
    case $cmd in
    "") COMPREPLY=($(compgen -W "$commands $globals" -- "$cur")); return ;;
    help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
    matmul) opts="-o --output -t --type --precision --tile -k --kernel --params --no-tune --verify --wrap --max-alloc --shards --panel --sparse --dense --dense-output" ;;
    tile-avg) opts="--tile -o --output --strict --variant --verify --clip --max-bytes --op --alpha --type --band-rows --quality --compress" ;;
    tile-map) opts="--tile --json --color" ;;
    life) opts="-g --gens -o --output -r --rule -b --boundary -s --size -d --density --seed --every --frames --gif --scale --kernel --tile --depth --word-bits --halo --max-bytes --sparse --plane --window" ;;
    convert) opts="--dtype --clip --coordinate --threads --dense --sparse --quality --compress" ;;
    devices) opts="--json" ;;
    bench)
        opts="--size --shape --tile --gens --reps --warmup --type --precision --params --no-tune --copy-size --seed --json --nnz --threads --dir --read --plain --pattern --plane --sparse --boundary --shards"
        [ "${COMP_WORDS[i+1]}" = e2e ] && opts="--size --reps --quick --no-numpy --exe --dir --json --image-size --no-vips --rows --matrix --no-scipy --pattern --no-bgolly"
        case ${COMP_WORDS[i+1]} in spgemm | spmm) opts="--matrix --cols --reps --warmup --seed --json" ;; esac
        if [ "$prev" = bench ] && [[ $cur != -* ]]; then
            COMPREPLY=($(compgen -W "copy matmul tile-avg life all e2e io spgemm spmm" -- "$cur")); return
        fi ;;
    tune)
        opts="--sizes --time-limit --candidates --max-sets --min-gain --seed --dry-run"
        if [ "$prev" = tune ] && [[ $cur != -* ]]; then COMPREPLY=($(compgen -W "matmul" -- "$cur")); return; fi ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts $globals" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _tiledcl tiledcl

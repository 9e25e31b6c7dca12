# Prints, one a line, the matches that zsh's completion system offers for a
# command line, as a user pressing Tab would get them: an interactive `zsh
# -f` in a pseudo-terminal (zsh/zpty) loads the completion functions of DIR
# with compinit, and a compadd that records what it adds is put in front of
# the builtin one. Exits 77 when zsh lacks zsh/zpty.
#
#   zsh -f tests/cli/zsh_complete.zsh DIR 'tiledcl --device '
emulate -L zsh
zmodload zsh/zpty 2>/dev/null || exit 77
local dir=$1 line=$2 out=${TMPDIR:-/tmp}/zsh-complete.$$
: >| $out
zpty z zsh -f -i
zpty -w z "PS1=''; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
# the internal calls (-O, -A, -D: matches into an array) add nothing
zpty -w z "compadd() { if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd \"\$@\"; return; fi; local -a _h; builtin compadd -A _h \"\$@\"; print -rl -- \$_h >> ${(q)out}; builtin compadd \"\$@\"; }"
zpty -w z "_done() { print -r -- '#done' >> ${(q)out}; }; comppostfuncs=(_done)"
zpty -w z "bindkey '^I' complete-word"
zpty -w -n z "$line"$'\t'
local i
for i in {1..200}; do
    grep -q '^#done$' $out 2>/dev/null && break
    sleep 0.05
done
zpty -d z
grep -v '^#done$' $out | sort -u
integer found=$(grep -c '^#done$' $out)
rm -f $out
(( found )) || exit 2

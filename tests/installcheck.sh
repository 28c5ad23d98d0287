#!/bin/bash
# What make install installed works (make installcheck runs this): the installed
# pego starts and prints its version; the example program of the installed
# libpego(3) builds with pkg-config, shared and static (--static), and runs
# (tests/man_example.test), also profiled through PEGO_FLAGS; the documents the man pages name and the bash completion are
# installed.
#
# The installation folders come from the environment, as make installcheck
# passes them: bindir, libdir, includedir, mandir, docdir, bashcompletiondir,
# and DESTDIR when the files were installed under it. An installation under
# DESTDIR is not where it was built for, so its programs are run with
# LD_LIBRARY_PATH; without DESTDIR they are run as they are.
set -u
srcdir=${srcdir:-.}
PY=${PYTHON3:-python3}
CC=${CC:-cc}
root=${DESTDIR:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if "$@"; then ok; else bad "$*"; fi; }

if [ -n "$root" ]; then
    export LD_LIBRARY_PATH="$root$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export PKG_CONFIG_SYSROOT_DIR=$root
fi
export PKG_CONFIG_PATH="$root$libdir/pkgconfig"
pego=$root$bindir/pego

# 1. The installed command starts and says its version, every way it is asked.
for how in version --version -v; do
    out=$("$pego" "$how" 2>&1)
    case $out in "pego "[0-9]*) ok ;; *) bad "$pego $how printed: $out" ;; esac
done

# the library it loads is the one installed with it
loaded=$(ldd "$pego" | sed -n 's/.*libpego\.so[.0-9]* => \(.*\)/\1/p' | sed 's/ (0x[0-9a-f]*)$//')
case $loaded in
"$root$libdir"/libpego.so*) ok ;;
*) bad "$pego loads libpego from '${loaded:-nowhere}', not from $root$libdir" ;;
esac

# 2. The example program of the installed man page, built with pkg-config.
"$PY" "$srcdir/tests/doc_check.py" example "$root$mandir/man3/libpego.3" >"$tmp/greet.c" || bad "no example in libpego(3)"
cflags=$(pkg-config --cflags pego) && libs=$(pkg-config --libs pego) && static_libs=$(pkg-config --static --libs pego)
check test -n "${libs:-}"
# the shared build finds the library by the path the man page suggests for
# prefixes outside the loader's search path
check "$CC" -Wall -Wextra -Werror $cflags "$tmp/greet.c" $libs -Wl,-rpath,"$libdir" -o "$tmp/greet-shared"
check "$CC" -Wall -Wextra -Werror $cflags "$tmp/greet.c" $static_libs -static -o "$tmp/greet-static"
check test "$(ldd "$tmp/greet-static" 2>&1 | grep -c libpego)" = 0
# each runs, and profiled through PEGO_FLAGS writes a report that zstd and the
# installed pego read
for prog in greet-shared greet-static; do
    check "$srcdir/tests/man_example.test" "$tmp/$prog" "$pego"
done

# 3. The documents the installed man pages name, the man pages, the completion.
check test -f "$root$mandir/man1/pego.1"
check env INSTALLED_DOCS="$(cd "$root$docdir" 2>/dev/null && find docs -name '*.md')" \
    "$PY" "$srcdir/tests/doc_check.py" installed-docs
check test -f "$root$includedir/pego.h"
check bash -c 'source "$1" && complete -p pego >/dev/null' - "$root$bashcompletiondir/pego"

echo "installcheck: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

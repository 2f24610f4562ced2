#!/bin/sh
# porter-in-root: run a command of a porter toolchain (a Debian root holding a ROCm) as if it were installed here.
#
#   TOOLCHAIN/bin/porter-in-root COMMAND [ARG...]    (TOOLCHAIN/bin/hipcc and bin/hipconfig call it)
#
# `porter toolchain install` copies this script to TOOLCHAIN/bin/; the root is TOOLCHAIN/root (found from this
# script's own path, so the directory can move). COMMAND runs chrooted into the root inside a private mount
# namespace: as root `unshare --mount`, otherwise a user namespace (`unshare --user --map-root-user --mount`).
# The bind mounts vanish with the namespace; nothing stays mounted after the command.
#
# Inside, /proc, /dev and /sys are the host's, and so are the host's own top-level directories (/tmp, /home,
# /root, /work, /srv, /mnt, ... every one that is not part of the system: /usr, /etc, /var, /opt and the like stay
# the root's), plus /var/tmp, each at the same path. A path named on the command line (`/x`, `-I/x`, `-o/x`,
# `--flag=/x`, `@/x`), the working directory and $TMPDIR are bound too where they lie outside those directories,
# from their first component the root lacks. So sources, output files, temp dirs and the paths in diagnostics
# mean the same inside and out.
set -eu

self=$(readlink -f -- "$0")
root=$(dirname -- "$(dirname -- "$self")")/root
if [ ! -x "$root/usr/bin/env" ]; then
    echo "porter-in-root: no toolchain root at $root (reinstall with: porter toolchain install --force)" >&2
    exit 127
fi
if [ $# -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi

if [ "${PORTER_IN_ROOT:-}" != "$root" ]; then
    # first pass: enter a private mount namespace, then run this script again inside it
    PORTER_IN_ROOT=$root
    PORTER_IN_ROOT_CWD=$(pwd -P)
    export PORTER_IN_ROOT PORTER_IN_ROOT_CWD
    if [ "$(id -u)" -eq 0 ]; then
        exec unshare --mount --propagation private -- "$self" "$@"
    fi
    exec unshare --user --map-root-user --mount --propagation private -- "$self" "$@"
fi

bind() {  # the host directory $1 at the same path inside the root
    if [ ! -d "$root$1" ] && ! mkdir -p -- "$root$1" 2>/dev/null; then
        echo "porter-in-root: cannot bind $1: no mount point in $root" >&2
        return 0
    fi
    mount --rbind -- "$1" "$root$1"
}

bind_outside() {  # absolute path $1: bind its first component that the root lacks, when the host has it
    rest=${1#/}
    prefix=
    while [ -n "$rest" ]; do
        part=${rest%%/*}
        case $rest in
            */*) rest=${rest#*/} ;;
            *) rest= ;;
        esac
        case $part in
            '' | . | ..) continue ;;
        esac
        prefix=$prefix/$part
        if [ ! -e "$root$prefix" ] && [ ! -L "$root$prefix" ]; then
            if [ -d "$prefix" ]; then bind "$prefix"; fi
            return 0
        fi
        if [ ! -d "$root$prefix" ]; then return 0; fi
        # folders and no files in the root: the mount points an earlier run made (they outlive its namespace),
        # not the root's own; the host's folder goes over them again
        if [ -d "$prefix" ] && [ ! -L "$prefix" ] && [ -z "$(find "$root$prefix" ! -type d -print -quit 2>/dev/null)" ] \
            && [ -n "$(find "$prefix" ! -type d -print -quit 2>/dev/null)" ]; then
            bind "$prefix"
            return 0
        fi
    done
}

mount --rbind /proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --rbind /sys "$root/sys" 2>/dev/null || :  # only tools that look for a GPU read it
for dir in /*; do
    case $dir in
        /bin | /boot | /dev | /etc | /lib | /lib32 | /lib64 | /libx32 | /lost+found | /opt | /proc | /run | /sbin | \
            /sys | /usr | /var) continue ;;
    esac
    if [ -d "$dir" ] && [ ! -L "$dir" ]; then bind "$dir"; fi
done
if [ -d /var/tmp ]; then bind /var/tmp; fi
# the host's /usr/include at /run/porter-host-include, which porter searches after everything else
# (-idirafter): headers of the user's own libraries (GL/glut.h, mpi.h, zlib.h) that the root does not have
if [ -d /usr/include ] && mkdir -p -- "$root/run/porter-host-include" 2>/dev/null; then
    mount --rbind -- /usr/include "$root/run/porter-host-include" || :
    # but not the host's own ROCm (Debian's 5.2): HIP's and the libraries' headers come from the root alone
    for lib in hip hipblas hipblas-common hipblaslt hipcub hipfft hiprand hipsolver hipsparse hipsparselt miopen \
        rccl rocblas rocfft rocprim rocrand rocsolver rocsparse rocthrust roctracer rocwmma thrust; do
        if [ -d "$root/run/porter-host-include/$lib" ]; then
            mount -t tmpfs -o ro,size=4k porter-hidden "$root/run/porter-host-include/$lib" || :
        fi
    done
fi
for arg in "$PORTER_IN_ROOT_CWD" "${TMPDIR:-/tmp}" "$@"; do
    case $arg in
        /*) bind_outside "$arg" ;;
        @/*) bind_outside "${arg#@}" ;;
        -[IoLB]/*) bind_outside "${arg#-?}" ;;
        -*=/*) bind_outside "${arg#*=}" ;;
    esac
done

# the root's own PATH and no host ROCm locations: the toolchain must not pick up the host's ROCm
exec chroot "$root" /usr/bin/env -u PORTER_IN_ROOT -u PORTER_IN_ROOT_CWD -u ROCM_PATH -u HIP_PATH \
    -u HIP_CLANG_PATH -u HIP_DEVICE_LIB_PATH -u DEVICE_LIB_PATH -u HSA_PATH -u HIP_ROCCLR_HOME -u HIP_LIB_PATH \
    -u HIP_INCLUDE_PATH -u LD_LIBRARY_PATH -u LD_PRELOAD -C "$PORTER_IN_ROOT_CWD" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"

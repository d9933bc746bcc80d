# The guest runs the kernel that was just built.
. "$CFQ_SRC/tests/lib.sh"

expect_eq "running the kernel release just built" "${EXPECT_RELEASE:-unknown}" "$(uname -r)"

build_id=$(python3 - <<'PY'
import struct
d = open('/sys/kernel/notes', 'rb').read()
i = 0
while i + 12 <= len(d):
    n, s, t = struct.unpack_from('<III', d, i)
    i += 12
    name = d[i:i + n]
    i += (n + 3) & ~3
    desc = d[i:i + s]
    i += (s + 3) & ~3
    if t == 3 and name.rstrip(b'\0') == b'GNU':
        print(desc.hex())
        break
PY
)
expect_eq "running the kernel build id just built" "${EXPECT_BUILD_ID:-unknown}" "$build_id"
done_testing

#!/usr/bin/env bash
# The repository's hygiene (docs/testing.md): no tracked bytecode or caches, and every commit
# subject since the subjects were cut to size at most 72 characters. Skips the history check
# outside a git checkout (a release tarball).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
fail() { echo "FAIL: test_hygiene: $*" >&2; exit 1; }
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "test_hygiene: not a git checkout: skipped"
	exit 77
fi
tracked=$(git ls-files | grep -E '(^|/)__pycache__/|\.py[co]$' || true)
[[ -z $tracked ]] || fail "tracked bytecode or caches: $tracked"
# ef0a416 is the last commit with a longer subject; a shallow clone may lack it.
base=ef0a416
if git cat-file -e "$base^{commit}" 2>/dev/null; then
	long=$(git log --format='%h %s' "$base..HEAD" | awk 'length($0) - index($0, " ") > 72')
	[[ -z $long ]] || fail "commit subjects over 72 characters: $long"
	n=$(git rev-list --count "$base..HEAD")
	echo "test_hygiene: $n commit subjects since $base, none over 72 characters"
else
	echo "test_hygiene: $base not in this clone: subjects not checked"
fi
echo "test_hygiene: no tracked bytecode"

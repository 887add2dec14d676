"""``kcca cache verify|prune``: find cache entries whose input files changed, and remove them."""

from __future__ import annotations

import argparse
import shlex

from kcca.cli.common import subparser


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(
        sub,
        "cache",
        "Check the cache against the files its entries were computed "
        "from (verify), or remove the entries that can no longer be used (prune).",
        run,
    )
    p.add_argument(
        "action",
        choices=("verify", "prune"),
        help="verify: report entries whose input files changed (exit 1 if any); "
        "prune: delete them and the temporary files of killed runs",
    )
    p.add_argument(
        "--unrecorded",
        action="store_true",
        help="prune: also delete entries without an input record (written by an older kcca)",
    )
    p.add_argument("--all", action="store_true", help="list every stale entry (default: 20)")
    return p


def run(args: argparse.Namespace) -> int:
    from kcca.cache import prune_cache, verify_cache
    from kcca.cli.common import cache_from_args

    if args.unrecorded and args.action != "prune":
        from kcca.errors import DataError

        raise DataError(
            "--unrecorded chooses what prune deletes, and verify deletes nothing",
            fix="run `kcca cache prune --unrecorded`, or drop --unrecorded",
        )
    cache = cache_from_args(args)
    if not cache.enabled:
        print("the cache is disabled (--no-cache): nothing to check")
        return 0
    assert cache.root is not None  # enabled means a root
    audit = verify_cache(cache.root)
    print(
        f"cache {cache.root}: {audit.current} entries current, {len(audit.stale)} stale "
        f"(an input file changed), {len(audit.unrecorded)} without an input record, "
        f"{len(audit.leftovers)} leftover files"
    )
    for stage, counts in sorted(audit.stages().items()):
        print(f"  {stage}: {counts['stale']} stale")
    shown = list(audit.stale.items()) if args.all else list(audit.stale.items())[:20]
    for path, reasons in shown:
        print(
            f"  stale {path.relative_to(cache.root)}: {reasons[0]}"
            + (f" (and {len(reasons) - 1} more files)" if len(reasons) > 1 else "")
        )
    if len(shown) < len(audit.stale):
        print(f"  ... {len(audit.stale) - len(shown)} more (--all lists them)")
    if args.action == "prune":
        removed = prune_cache(audit, unrecorded=args.unrecorded)
        print(f"removed {len(removed)} files")
        return 0
    if audit.stale or audit.leftovers:
        print("next: kcca cache prune --cache-dir " + shlex.quote(str(cache.root)))
        return 1
    return 0

"""``kcca cache verify|prune``: find cache entries that can no longer be used, and remove them."""

from __future__ import annotations

import argparse
import shlex

from kcca._cli.common import subparser

#: entries listed by name unless --all is given
SHOWN = 20


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(
        sub,
        "cache",
        "Check the cache against the files its entries were computed "
        "from (verify), or remove the entries that can no longer be used (prune). Only the "
        "cache's own files are ever removed: entries whose headers prove it, and temporary "
        "files of killed runs; links are not followed.",
        run,
    )
    p.add_argument(
        "action",
        choices=("verify", "prune"),
        help="verify: report entries whose input files changed, damaged (content that no "
        "longer matches the digest written with it) or misplaced entries "
        "and entries of the older pickle format (exit 1 if any); prune: list and delete them",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="prune: list what would be deleted, and its size, without deleting it",
    )
    p.add_argument("--all", action="store_true", help=f"list every file (default: {SHOWN})")
    return p


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return str(n)


def run(args: argparse.Namespace) -> int:
    from kcca._cache_audit import file_size, prune_cache, verify_cache
    from kcca._cli.common import cache_from_args

    if args.dry_run and args.action != "prune":
        from kcca.errors import DataError

        raise DataError(
            "--dry-run shows what prune would delete, and verify deletes nothing",
            fix="run `kcca cache prune --dry-run`, or drop --dry-run",
        )
    cache = cache_from_args(args)
    if not cache.enabled:
        print("the cache is disabled (--no-cache): nothing to check")
        return 0
    assert cache.root is not None  # enabled means a root
    root = cache.root
    audit = verify_cache(root)
    print(f"cache {root}:")
    print(
        f"  {audit.current} entries current, {len(audit.stale)} stale (an input file "
        f"changed), {len(audit.unusable)} damaged or misplaced"
    )
    print(
        f"  {len(audit.old_format)} files of the older pickle format (never read), "
        f"{len(audit.leftovers)} temporary files of killed runs"
    )
    if audit.foreign:
        print(f"  {len(audit.foreign)} other files or links, not the cache's own: left alone")
    for stage, counts in sorted(audit.stages().items()):
        print(f"  {stage}: {counts['stale']} stale")
    limit = None if args.all else SHOWN
    listed = [
        *(
            (p, f"stale: {r[0]}" + (f" (and {len(r) - 1} more)" if len(r) > 1 else ""))
            for p, r in audit.stale.items()
        ),
        *((p, why) for p, why in audit.unusable.items()),
    ]
    for path, why in listed[:limit]:
        print(f"  {path.relative_to(root)}")
        print(f"    {why}")
    if limit is not None and len(listed) > limit:
        print(f"  ... {len(listed) - limit} more (--all lists them)")
    doomed = audit.doomed()
    sizes = {p: file_size(p) for p in doomed}
    total = sum(sizes.values())
    if args.action == "prune":
        verb = "would delete" if args.dry_run else "deleting"
        print(f"{verb} {len(doomed)} files ({_size(total)}):")
        for path in doomed[:limit]:
            print(f"  {path.relative_to(root)}  {_size(sizes[path])}")
        if limit is not None and len(doomed) > limit:
            print(f"  ... {len(doomed) - limit} more (--all lists them)")
        if args.dry_run:
            return 0
        removed = prune_cache(audit)
        print(f"removed {len(removed)} files ({_size(sum(sizes[p] for p in removed))})")
        return 0
    if doomed:
        print(f"{len(doomed)} files ({_size(total)}) can be removed; to list and remove them:")
        print("next: kcca cache prune --cache-dir " + shlex.quote(str(root)))
        return 1
    return 0

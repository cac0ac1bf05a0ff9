"""`pleat plugin ...`: marketplaces added and listed, plugins installed, enabled, disabled,
uninstalled and listed (Claude Code's `claude plugin` words). Each prints one line or a list,
and a failure is one `pleat: error:` line with exit code 1."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent.plugins.files import PluginError
from agent.plugins.listing import marketplace_lines, plugin_lines

USAGE = """\
examples:
  pleat plugin marketplace add ./team-market   a directory with .claude-plugin/marketplace.json
  pleat plugin marketplace add https://host/team/plugins.git    a git repository (cloned)
  pleat plugin marketplace list
  pleat plugin install build-kit@my-marketplace    copied into pleat's data directory, enabled
  pleat plugin disable build-kit@my-marketplace    (enable, uninstall alike)
  pleat plugin list
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pleat plugin",
        description="Claude Code plugins: marketplaces, installs, enabled or not.",
        epilog=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verbs = parser.add_subparsers(dest="verb", required=True)
    market = verbs.add_parser("marketplace", help="add, list or remove marketplaces")
    market_verbs = market.add_subparsers(dest="market_verb", required=True)
    add = market_verbs.add_parser("add", help="add a marketplace: a directory or a git source")
    add.add_argument("source", help="a directory, a git URL or path, or GitHub's owner/repo")
    market_verbs.add_parser("list", help="the marketplaces pleat knows")
    remove = market_verbs.add_parser("remove", help="forget a marketplace")
    remove.add_argument("name")
    for verb, what in (
        ("install", "install a plugin from a marketplace (and enable it)"),
        ("uninstall", "remove an installed plugin"),
        ("enable", "enable an installed plugin"),
        ("disable", "disable an installed plugin (it stays installed)"),
    ):
        verbs.add_parser(verb, help=what).add_argument("plugin", metavar="PLUGIN@MARKETPLACE")
    verbs.add_parser("list", help="the installed plugins, enabled or not")
    return parser


def run(args: argparse.Namespace) -> str:
    """What the command says; raises PluginError or OSError."""
    from agent.plugins import install

    if args.verb == "marketplace":
        if args.market_verb == "add":
            return install.add_marketplace(args.source, Path.cwd())
        if args.market_verb == "remove":
            return install.remove_marketplace(args.name)
        return "\n".join(marketplace_lines())
    if args.verb == "list":
        return "\n".join(plugin_lines())
    if args.verb == "install":
        return install.install(args.plugin)
    if args.verb == "uninstall":
        return install.uninstall(args.plugin)
    return install.set_enabled(args.plugin, args.verb == "enable")


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        print(run(args))
    except (PluginError, OSError) as error:
        print(f"pleat: error: {error}", file=sys.stderr)
        return 1
    return 0

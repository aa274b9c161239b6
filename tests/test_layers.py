"""The house's layers (README "Layout"): import-linter's contracts in pyproject.toml,
and no import cycle among pbem's modules.

Both read the imports as written, including those inside functions, so a late import
that hides a cycle from Python does not hide it from here.
"""

import subprocess
import sys
from pathlib import Path

import grimp
import networkx

ROOT = Path(__file__).resolve().parent.parent


def test_every_layer_contract_is_kept():
    """`lint-imports` names the broken contract and the chain of imports that breaks it."""
    linter = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run([str(linter), "--no-cache"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """The groups of more than one module that import one another round a circle: the
    import graph's strongly connected components (networkx)."""
    imports = networkx.DiGraph()
    imports.add_nodes_from(modules)
    imports.add_edges_from((module, imported) for module in modules
                           for imported in graph.find_modules_directly_imported_by(module)
                           & modules)
    return sorted(sorted(group) for group in networkx.strongly_connected_components(imports)
                  if len(group) > 1)


def test_no_module_imports_itself_round_a_circle():
    graph = grimp.build_graph("pbem", "notation", cache_dir=None)
    # A package's __init__ re-exporting its modules is not a circle worth a name.
    modules = {m for m in graph.modules if not graph.find_children(m)}
    assert cycles(graph, modules) == []


def test_the_cycle_finder_finds_a_circle():
    graph = grimp.ImportGraph()
    for name in ("a", "a.b", "a.c", "a.d"):
        graph.add_module(name)
    graph.add_import(importer="a.b", imported="a.c")
    graph.add_import(importer="a.c", imported="a.b")
    graph.add_import(importer="a.c", imported="a.d")
    assert cycles(graph, {"a.b", "a.c", "a.d"}) == [["a.b", "a.c"]]

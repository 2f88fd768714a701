"""Records networkx's maximum-weight matchings of random graphs, the oracle
of `pairing/tests/matching.rs`: graphs of 10 to 80 vertices, sparse to
complete, weights from a few values (ties, hence blossoms) to 100 bits.

    .venv/bin/pip install networkx
    .venv/bin/python scripts/networkx-matchings.py > pairing/tests/data/networkx-matchings.json
"""

import json
import random

import networkx as nx


def main():
    rng = random.Random(2026)
    cases = []
    for _ in range(120):
        n = rng.choice([10, 17, 30, 51, 80])
        density = rng.choice([0.05, 0.2, 0.6, 1.0])
        top = rng.choice([3, 50, 10**6, 2**100])
        graph = nx.Graph()
        graph.add_nodes_from(range(n))
        edges = []
        for a in range(n):
            for b in range(a + 1, n):
                if rng.random() < density:
                    weight = rng.randint(1, top)
                    graph.add_edge(a, b, weight=weight)
                    edges.append([a, b, str(weight)])
        matching = nx.max_weight_matching(graph, maxcardinality=False)
        total = sum(graph[a][b]["weight"] for a, b in matching)
        cases.append({"n": n, "edges": edges, "weight": str(total)})
    print(json.dumps(cases, separators=(",", ":")))


if __name__ == "__main__":
    main()

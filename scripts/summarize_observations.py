#!/usr/bin/python3
"""Prints the figures behind docs/cost-data.md's observation summary from the datasets of
`shardplan data observations`:

  summarize_observations.py DIR [DIR ...]

obs1: one column half's cost over the whole table's (> 0.5 is Observation 1); obs2: multi-table
cost over the sum of single costs, and their correlation; obs3: correlation of the max device dim
sum with the max forward and backward all-to-all cost.
"""
import json, sys, statistics
def corr(x, y):
    mx, my = statistics.mean(x), statistics.mean(y)
    sx = sum((a-mx)**2 for a in x) ** .5; sy = sum((b-my)**2 for b in y) ** .5
    return sum((a-mx)*(b-my) for a, b in zip(x, y)) / (sx*sy)
for d in sys.argv[1:]:
    o1 = json.load(open(d+'/observation1.json'))
    r = [s['half_ms']/s['whole_ms'] for t in o1['tables'] for s in t['splits']]
    r128 = [s['half_ms']/s['whole_ms'] for t in o1['tables'] for s in t['splits'] if s['dim']==128]
    o2 = json.load(open(d+'/observation2.json'))
    q = [c['multi_ms']/c['sum_single_ms'] for c in o2['combinations']]
    xs=[c['sum_single_ms'] for c in o2['combinations']]; ys=[c['multi_ms'] for c in o2['combinations']]
    line = f"{d}: obs1 half/whole min {min(r):.3f} (at dim 128: {min(r128):.3f}-{max(r128):.3f}), all > 0.5: {all(x>0.5 for x in r)}; obs2 multi/sum {min(q):.3f}-{max(q):.3f} (median {statistics.median(q):.3f}), corr {corr(xs,ys):.3f}"
    try:
        o3 = json.load(open(d+'/observation3.json'))
        for g in o3['device_counts']:
            x=[p['max_dim_sum'] for p in g['points']]
            line += f"; obs3 N={g['num_devices']}: corr(max dim sum, max fw) {corr(x,[p['max_forward_ms'] for p in g['points']]):.3f}, bw {corr(x,[p['max_backward_ms'] for p in g['points']]):.3f}"
    except FileNotFoundError:
        pass
    print(line)

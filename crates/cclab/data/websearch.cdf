# Flow sizes of the web-search workload: the cumulative distribution of background-flow
# sizes measured in a production web-search cluster, Alizadeh et al., "Data Center TCP
# (DCTCP)", SIGCOMM 2010, §2.2 (Figure 4), the workload of pFabric (Alizadeh et al.,
# SIGCOMM 2013, §5.1), as its authors publish the points (github.com/datacenter/
# empirical-traffic-gen, DCTCP_CDF; the same points are HPCC's WebSearch_distribution.txt).
# Columns: flow size in bytes, cumulative probability. Between points the distribution is
# linear in size (as ns-2's EmpiricalRandomVariable interpolates).
0 0
10000 0.15
20000 0.2
30000 0.3
50000 0.4
80000 0.53
200000 0.6
1000000 0.7
2000000 0.8
5000000 0.9
10000000 0.97
30000000 1

# Flow sizes of the data-mining workload: the distribution of flow sizes measured in a
# data center running data-mining jobs, Greenberg et al., "VL2: A Scalable and Flexible
# Data Center Network", SIGCOMM 2009, §3.1 (Figure 2), the second workload of pFabric
# (Alizadeh et al., SIGCOMM 2013, §5.1), as its authors publish the points
# (github.com/datacenter/empirical-traffic-gen, VL2_CDF): most flows are small, almost all
# bytes are in flows of 100 MB to 1 GB.
# Columns: flow size in bytes, cumulative probability; linear between points.
0 0
180 0.1
216 0.2
560 0.3
900 0.4
1100 0.5
1870 0.6
3160 0.7
10000 0.8
400000 0.9
3160000 0.95
100000000 0.98
1000000000 1

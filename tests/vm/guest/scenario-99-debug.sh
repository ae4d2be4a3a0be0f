t0=$(now); ktop --features; note "features rc $? in $(awk -v a=$t0 -v b=$(now) 'BEGIN{print b-a}') s"
t0=$(now); ktop --batch --json --iterations 2 -p function -l read_zero > /tmp/o 2>&1; note "batch rc $? in $(awk -v a=$t0 -v b=$(now) 'BEGIN{print b-a}') s"; cat /tmp/o
# timeout: 300

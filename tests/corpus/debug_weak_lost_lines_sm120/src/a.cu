// Written for culdb's corpus: a reproducer made while checking the -G real-world sweep.
#include "h.h"
__global__ void ka(int *p) { p[0] = cmp<1>(p[1], p[2]); }

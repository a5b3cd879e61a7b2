// Written for culdb's corpus: a reproducer made while checking the -G real-world sweep.
#include "h.h"
__global__ void kb(int *p) { p[0] = cmp<1>(p[2], p[1]); }

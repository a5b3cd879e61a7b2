#include "h.h"
__global__ void ka(int *p) { p[threadIdx.x] = table_ptr[threadIdx.x & 3] + table[1]; }

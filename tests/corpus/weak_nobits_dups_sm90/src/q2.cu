#include "h.h"
__global__ void k2(int* o){ o[0] = gp; }

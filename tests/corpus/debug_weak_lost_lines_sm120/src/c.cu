// Written for culdb's corpus: a third unit after the one that loses its sequences.
__global__ void kc(int *p) { p[0] = p[1] * 3; }

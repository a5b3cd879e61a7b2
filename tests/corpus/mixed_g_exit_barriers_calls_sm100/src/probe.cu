// Built with -G: its module .nv.info asks for errors made visible at exit.
__global__ void probe(int* d) { d[0] = 7; }

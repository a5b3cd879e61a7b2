// A switch compiled to a jump table (sm_120: `BRXU UR4 -imm`, the table in
// .nv.constant2, EIATTR_INDIRECT_BRANCH_TARGETS) in a kernel that also
// fences: nvlink's finalizer deletes the dummy loads and MEMBAR.ALL.CTA
// before MEMBAR.SC.GPU and moves every BRXU's offset, the table's
// entries, the branch targets and the EXIT offsets (observation 206).
__global__ void kswitch(int* p, int op) {
  __threadfence();
  int v = p[threadIdx.x];
  switch (op) {
    case 0: v += 1; break;
    case 1: v *= 3; break;
    case 2: v ^= 7; break;
    case 3: v -= 9; break;
    case 4: v = v << 2; break;
    case 5: v = v >> 1; break;
    case 6: v = ~v; break;
    default: v = 0;
  }
  p[threadIdx.x] = v;
}

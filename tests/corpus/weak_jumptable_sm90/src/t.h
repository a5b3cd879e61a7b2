// A weak template kernel and a weak template device function, each with a
// jump table, instantiated in both files.
template<int N> __noinline__ __device__ int tf(int x){ int r;
  switch(x){
  case 0: r= x*7+N; break; case 1: r= x^99; break; case 2: r= x*x+3; break; case 3: r= x-19; break;
  case 4: r= x*13; break; case 5: r= x+4321; break; case 6: r= x>>3; break; case 7: r= x*x*x+1; break;
  case 8: r= 15; break; case 9: r= x|0x200; break; default: r= -7;}
  return r; }
template<int N> __global__ void tk(int*p){ int x=p[1]; int r;
  switch(x){
  case 0: r= x*5+N; break; case 1: r= x^91; break; case 2: r= x*x+5; break; case 3: r= x-17; break;
  case 4: r= x*19; break; case 5: r= x+1321; break; case 6: r= x>>4; break; case 7: r= x*x+1; break;
  case 8: r= 25; break; case 9: r= x|0x300; break; default: r= -9;}
  p[0]=tf<1>(r); }

// uchar4 3x3 2D array read as normalized floats, a 7-texel float 1D array (tex1D), and tex1Dfetch on linear memory
#include<cstdio>
__global__ void k(cudaTextureObject_t t,float4*o,float b,float s){int i=threadIdx.x,j=blockIdx.x;o[j*64+i]=tex2D<float4>(t,b+i*s,b+j*s*1.01f);}
__global__ void g(cudaTextureObject_t t,float4*o,float b,float s,int e){int i=threadIdx.x;o[i]=make_float4(e?tex1Dfetch<float>(t,i-8):tex1D<float>(t,b+i*s),0,0,0);}
int main(){uchar4 v[9];for(int i=0;i<9;i++)v[i]=make_uchar4(i*29%256,255-i*17,i*i*3,i==4?255:i*11);float w[7];for(int x=0;x<7;x++)w[x]=x*x*.75f-x*2+1;
auto c=cudaCreateChannelDesc<uchar4>(),cf=cudaCreateChannelDesc<float>();cudaArray_t a,a1;cudaMallocArray(&a,&c,3,3);cudaMemcpy2DToArray(a,0,0,v,12,12,3,cudaMemcpyHostToDevice);
cudaMallocArray(&a1,&cf,7,0);cudaMemcpy2DToArray(a1,0,0,w,28,28,1,cudaMemcpyHostToDevice);float*l;cudaMalloc(&l,28);cudaMemcpy(l,w,28,cudaMemcpyHostToDevice);
float4*o;cudaMallocManaged(&o,64*64*16);FILE*f=fopen(getenv("F"),"wb");
for(int T=0;T<3;T++)for(int N=0;N<2;N++)for(int F=0;F<2;F++)for(int A=0;A<5;A++){if(T==2&&(N||F))continue;cudaResourceDesc r={};r.resType=T<2?cudaResourceTypeArray:cudaResourceTypeLinear;r.res.array.array=T?a1:a;
if(T==2){r.res.linear.devPtr=l;r.res.linear.desc=cf;r.res.linear.sizeInBytes=28;}cudaTextureDesc d={};
d.addressMode[0]=d.addressMode[1]=(cudaTextureAddressMode)(A<4?A:3);d.filterMode=(cudaTextureFilterMode)F;d.normalizedCoords=N;d.readMode=T?cudaReadModeElementType:cudaReadModeNormalizedFloat;
if(A==4)for(int q=0;q<4;q++)d.borderColor[q]=q-.5f;cudaTextureObject_t t;if(cudaCreateTextureObject(&t,&r,&d,0))return 1;
float b=N?-1.25f:-1.5f,s=N?.0557f:.127f;if(T)g<<<1,64>>>(t,o,b,s,T==2);else k<<<64,64>>>(t,o,b,s);cudaDeviceSynchronize();fwrite(o,16,T?64:4096,f);cudaDestroyTextureObject(t);}
fclose(f);return cudaGetLastError();}

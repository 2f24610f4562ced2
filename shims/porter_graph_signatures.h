// porter shim: graph calls whose signatures differ between CUDA 12+ and HIP (5.2, 6.4).
//
// porter_graph_exec_update: CUDA 12's cudaGraphExecUpdate(exec, graph, &resultInfo) over HIP's
// hipGraphExecUpdate(exec, graph, &errorNode, &result). How this differs from CUDA: HIP reports no
// errorFromNode (it is set to null); result and errorNode are HIP's.
// hipGraphMemsetNodeGetParams/SetParams on HIP_MEMSET_NODE_PARAMS (the driver API's cuGraphMemsetNode*Params
// take CUDA_MEMSET_NODE_PARAMS; HIP's take the runtime's hipMemsetParams, whose fields are in another order):
// overloads that copy field by field. How this differs from CUDA: it does not (the same fields, by name).
#ifndef PORTER_GRAPH_SIGNATURES_H
#define PORTER_GRAPH_SIGNATURES_H

#include <hip/hip_runtime.h>

typedef struct porter_graph_exec_update_result_info {
    hipGraphExecUpdateResult result;
    hipGraphNode_t errorNode;
    hipGraphNode_t errorFromNode;
} porter_graph_exec_update_result_info;

inline hipError_t porter_graph_exec_update(hipGraphExec_t exec, hipGraph_t graph,
                                           porter_graph_exec_update_result_info* info) {
    hipGraphNode_t node = nullptr;
    hipGraphExecUpdateResult result = hipGraphExecUpdateSuccess;
    hipError_t status = hipGraphExecUpdate(exec, graph, &node, &result);
    if (info != nullptr) {
        info->result = result;
        info->errorNode = node;
        info->errorFromNode = nullptr;
    }
    return status;
}

#if defined(HIP_VERSION) && HIP_VERSION >= 60100000  // HIP_MEMSET_NODE_PARAMS is in HIP from 6.1
inline hipError_t hipGraphMemsetNodeSetParams(hipGraphNode_t node, const HIP_MEMSET_NODE_PARAMS* params) {
    if (params == nullptr) return hipErrorInvalidValue;
    hipMemsetParams p{};
    p.dst = reinterpret_cast<void*>(params->dst);
    p.pitch = params->pitch;
    p.value = params->value;
    p.elementSize = params->elementSize;
    p.width = params->width;
    p.height = params->height;
    return hipGraphMemsetNodeSetParams(node, &p);
}

inline hipError_t hipGraphMemsetNodeGetParams(hipGraphNode_t node, HIP_MEMSET_NODE_PARAMS* params) {
    if (params == nullptr) return hipErrorInvalidValue;
    hipMemsetParams p{};
    hipError_t status = hipGraphMemsetNodeGetParams(node, &p);
    params->dst = reinterpret_cast<hipDeviceptr_t>(p.dst);
    params->pitch = p.pitch;
    params->value = p.value;
    params->elementSize = p.elementSize;
    params->width = p.width;
    params->height = p.height;
    return status;
}
#endif

#endif  // PORTER_GRAPH_SIGNATURES_H

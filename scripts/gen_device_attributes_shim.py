"""Write shims/porter_device_attributes.h: device attributes and limits CUDA has and HIP lacks.

Usage: python scripts/gen_device_attributes_shim.py          (writes the shim)
       python scripts/gen_device_attributes_shim.py --rows   (prints the API-map rows for porter/data/apis/_curated.toml)

Each attribute is answered with what CUDA reports on a GPU without the feature; the list below is the source.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (porter name, value, why, runtime enumerator, driver enumerator)
ATTRIBUTES = [
    ("cluster_launch", "0", "AMD GPUs have no thread-block clusters", "cudaDevAttrClusterLaunch",
     "CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH"),
    ("max_persisting_l2_cache_size", "0", "AMD GPUs have no persisting-L2 set-aside",
     "cudaDevAttrMaxPersistingL2CacheSize", "CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE"),
    ("max_access_policy_window_size", "0", "no L2 access-policy windows on AMD GPUs",
     "cudaDevAttrMaxAccessPolicyWindowSize", "CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE"),
    ("reserved_shared_memory_per_block", "0", "HIP reserves no LDS per workgroup",
     "cudaDevAttrReservedSharedMemoryPerBlock", "CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK"),
    ("mem_sync_domain_count", "1", "one memory-synchronization domain, what CUDA reports on GPUs without domains",
     "cudaDevAttrMemSyncDomainCount", "CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT"),
    ("mps_enabled", "0", "no CUDA MPS on ROCm", "cudaDevAttrMpsEnabled", "CU_DEVICE_ATTRIBUTE_MPS_ENABLED"),
    ("sparse_cuda_array_supported", "0", "HIP has no sparse arrays", "cudaDevAttrSparseCudaArraySupported",
     "CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED"),
    ("deferred_mapping_cuda_array_supported", "0", "HIP has no deferred-mapping arrays",
     "cudaDevAttrDeferredMappingCudaArraySupported", "CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED"),
    ("timeline_semaphore_interop_supported", "0", "HIP has no timeline-semaphore interop",
     "cudaDevAttrTimelineSemaphoreInteropSupported", "CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED"),
    ("can_flush_remote_writes", "0", "HIP has no remote-write flush", "cudaDevAttrCanFlushRemoteWrites",
     "CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES"),
    ("read_only_host_register_supported", "0", "HIP has no read-only host registration flag",
     "cudaDevAttrHostRegisterReadOnlySupported", "CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED"),
    ("tensor_map_access_supported", "0", "tensor maps (TMA) are NVIDIA hardware", None,
     "CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED"),
    ("multicast_supported", "0", "HIP has no multicast objects", None, "CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED"),
    ("numa_config", "0", "reported as CUDA's 'no NUMA node' (HIP does not say)", "cudaDevAttrNumaConfig",
     "CU_DEVICE_ATTRIBUTE_NUMA_CONFIG"),
    ("numa_id", "-1", "reported as CUDA's 'no NUMA node' (HIP does not say)", "cudaDevAttrNumaId",
     "CU_DEVICE_ATTRIBUTE_NUMA_ID"),
    ("host_numa_id", "-1", "reported as CUDA's 'no NUMA node' (HIP does not say)", "cudaDevAttrHostNumaId",
     "CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID"),
    ("generic_compression_supported", "0", "HIP exposes no compressible memory", None,
     "CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED"),
    ("handle_type_win32_handle_supported", "0", "ROCm on Linux exports no Win32 handles", None,
     "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED"),
    ("handle_type_win32_kmt_handle_supported", "0", "ROCm on Linux exports no Win32 handles", None,
     "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED"),
    ("handle_type_fabric_supported", "0", "HIP has no fabric handles", None,
     "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED"),
    # not a constant: ROCm exports VMM allocations as POSIX file descriptors (hipMemExportToShareableHandle, Linux)
    ("handle_type_posix_file_descriptor_supported", "porter_vmm_supported(device)",
     "HIP's virtual-memory-management attribute (0 before ROCm 5.3, which has no VMM API): ROCm on Linux exports "
     "VMM allocations as POSIX file descriptors", None,
     "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED"),
    # HIP's own attribute from ROCm 5.3; before, the header spells HIP's name as this one (no VMM API there: 0)
    ("virtual_memory_management_supported", "porter_vmm_supported(device)",
     "stands for hipDeviceAttributeVirtualMemoryManagementSupported before ROCm 5.3, which lacks it", None, None),
]

# (porter name, why, runtime enumerator, driver enumerator)
LIMITS = [
    ("persisting_l2_cache_size", "AMD GPUs have no persisting-L2 set-aside: setting it does nothing, reading it gives 0",
     "cudaLimitPersistingL2CacheSize", "CU_LIMIT_PERSISTING_L2_CACHE_SIZE"),
    ("max_l2_fetch_granularity", "a prefetch-size hint with no HIP counterpart: setting it does nothing, reading it "
     "gives 0", "cudaLimitMaxL2FetchGranularity", "CU_LIMIT_MAX_L2_FETCH_GRANULARITY"),
]

TEMPLATE = """\
// porter shim: device attributes and limits CUDA has and HIP lacks, answered with what CUDA reports on a GPU
// without the feature (generated by scripts/gen_device_attributes_shim.py; the list is in that script).
// The translator writes porter_dev_attr_* / porter_limit_* for the CUDA enumerators; this header then takes
// hipDeviceGetAttribute, hipDeviceGetLimit and hipDeviceSetLimit through porter's versions (macros), which answer
// porter's values and pass every other attribute and limit to HIP. ROCm before 5.3 has no hipDeviceSetLimit: there
// the setter answers hipErrorUnsupportedLimit for HIP's own limits.
// How it differs from CUDA: the answers are fixed (e.g. 0 for cluster launch, no NUMA node) except POSIX file
// descriptor export, answered by HIP's virtual-memory-management attribute; setting the
// persisting-L2 or L2 fetch-granularity limit succeeds and does nothing (a hint with no AMD counterpart).
#pragma once
#include <cstddef>
#include <hip/hip_runtime.h>

enum porter_device_attribute_t {{
{attributes}
}};

enum porter_limit_t {{
{limits}
}};

#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION < 50300000
// HIP 5.2 has neither the attribute nor a working VMM API: the answer is CUDA's for a GPU without VMM, 0
#define hipDeviceAttributeVirtualMemoryManagementSupported porter_dev_attr_virtual_memory_management_supported
#endif

static inline int porter_vmm_supported(int device) {{
#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION < 50300000
    (void)device;
    return 0;
#else
    int supported = 0;
    return (hipDeviceGetAttribute)(&supported, hipDeviceAttributeVirtualMemoryManagementSupported, device) ==
                   hipSuccess
               ? supported
               : 0;
#endif
}}

static inline hipError_t porter_device_get_attribute(int* value, int attribute, int device) {{
    if (value == nullptr) return hipErrorInvalidValue;
    switch (attribute) {{
{attribute_cases}
        default: break;
    }}
    return (hipDeviceGetAttribute)(value, static_cast<hipDeviceAttribute_t>(attribute), device);
}}

static inline hipError_t porter_device_get_limit(size_t* value, int limit) {{
    if (value == nullptr) return hipErrorInvalidValue;
    switch (limit) {{
{get_cases}
        default: break;
    }}
    return (hipDeviceGetLimit)(value, static_cast<hipLimit_t>(limit));
}}

static inline hipError_t porter_device_set_limit(int limit, size_t value) {{
    switch (limit) {{
{set_cases}
        default: break;
    }}
#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION < 50300000
    (void)value;
    return hipErrorUnsupportedLimit;
#else
    return (hipDeviceSetLimit)(static_cast<hipLimit_t>(limit), value);
#endif
}}

#define hipDeviceGetAttribute porter_device_get_attribute
#define hipDeviceGetLimit porter_device_get_limit
#define hipDeviceSetLimit porter_device_set_limit
"""


def shim_text() -> str:
    return TEMPLATE.format(
        attributes="\n".join(f"    porter_dev_attr_{n} = 0x50000000 + {i},  // {v}: {w}"
                             for i, (n, v, w, _, _) in enumerate(ATTRIBUTES)),
        limits="\n".join(f"    porter_limit_{n} = 0x50000000 + {i},  // {w}" for i, (n, w, _, _) in enumerate(LIMITS)),
        attribute_cases="\n".join(f"        case porter_dev_attr_{n}: *value = {v}; return hipSuccess;"
                                  for n, v, _, _, _ in ATTRIBUTES),
        get_cases="\n".join(f"        case porter_limit_{n}: *value = 0; return hipSuccess;" for n, *_ in LIMITS),
        set_cases="\n".join(f"        case porter_limit_{n}: return hipSuccess;" for n, *_ in LIMITS),
    )


def provided_names() -> list[str]:
    return [f"porter_dev_attr_{n}" for n, *_ in ATTRIBUTES] + [f"porter_limit_{n}" for n, *_ in LIMITS]


def mapping_rows() -> list[str]:
    rows = []
    for n, v, w, runtime, driver in ATTRIBUTES:
        for cuda in (runtime, driver):
            if cuda:
                family = "runtime" if cuda.startswith("cuda") else "driver"
                rows.append(f'{cuda} = {{ family = "{family}", hip = "porter_dev_attr_{n}", kind = "enum", '
                            f'note = "porter shim porter_device_attributes.h answers {v}: {w}" }}')
    for n, w, runtime, driver in LIMITS:
        for cuda in (runtime, driver):
            family = "runtime" if cuda.startswith("cuda") else "driver"
            rows.append(f'{cuda} = {{ family = "{family}", hip = "porter_limit_{n}", kind = "enum", '
                        f'note = "porter shim porter_device_attributes.h: {w}" }}')
    return rows


def main() -> int:
    if "--rows" in sys.argv[1:]:
        print("\n".join(mapping_rows()))
        return 0
    (ROOT / "shims" / "porter_device_attributes.h").write_text(shim_text(), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

// porter shim: cuSOLVER's precision and iterative-refinement enumerations (cusolverPrecType_t,
// cusolverIRSRefinement_t), which hipSOLVER lacks: it has no iterative-refinement (IRS) solvers and no
// precision-type parameters. Code that only names them (the traits of CUDALibrarySamples' cusolver_utils.h, a
// string-to-enum helper) compiles with CUDA's values.
// How it differs from CUDA: the enumerations name nothing hipSOLVER can take, so a call to an IRS solver
// (cusolverDnIRSXgesv...) stays reported, since hipSOLVER has none.
#ifndef PORTER_CUSOLVER_ENUMS_H
#define PORTER_CUSOLVER_ENUMS_H

typedef enum porter_cusolver_irs_refinement {
    PORTER_CUSOLVER_IRS_REFINE_NOT_SET = 1100,
    PORTER_CUSOLVER_IRS_REFINE_NONE = 1101,
    PORTER_CUSOLVER_IRS_REFINE_CLASSICAL = 1102,
    PORTER_CUSOLVER_IRS_REFINE_CLASSICAL_GMRES = 1103,
    PORTER_CUSOLVER_IRS_REFINE_GMRES = 1104,
    PORTER_CUSOLVER_IRS_REFINE_GMRES_GMRES = 1105,
    PORTER_CUSOLVER_IRS_REFINE_GMRES_NOPCOND = 1106,
    PORTER_CUSOLVER_PREC_DD = 1150,
    PORTER_CUSOLVER_PREC_SS = 1151,
    PORTER_CUSOLVER_PREC_SHT = 1152
} porter_cusolver_irs_refinement_t;

typedef enum porter_cusolver_prec_type {
    PORTER_CUSOLVER_R_8I = 1201,
    PORTER_CUSOLVER_R_8U = 1202,
    PORTER_CUSOLVER_R_64F = 1203,
    PORTER_CUSOLVER_R_32F = 1204,
    PORTER_CUSOLVER_R_16F = 1205,
    PORTER_CUSOLVER_R_16BF = 1206,
    PORTER_CUSOLVER_R_TF32 = 1207,
    PORTER_CUSOLVER_R_AP = 1208,
    PORTER_CUSOLVER_C_8I = 1211,
    PORTER_CUSOLVER_C_8U = 1212,
    PORTER_CUSOLVER_C_64F = 1213,
    PORTER_CUSOLVER_C_32F = 1214,
    PORTER_CUSOLVER_C_16F = 1215,
    PORTER_CUSOLVER_C_16BF = 1216,
    PORTER_CUSOLVER_C_TF32 = 1217,
    PORTER_CUSOLVER_C_AP = 1218
} porter_cusolver_prec_type_t;

#endif  // PORTER_CUSOLVER_ENUMS_H

// porter shim: a CUDA status or error enumerator HIP lacks (CUFFT_LICENSE_ERROR, CUDA_ERROR_TIMEOUT, ...) where the
// code compares a result with it (`if (status == CUFFT_LICENSE_ERROR)`). No HIP call returns a status HIP does not
// define, so `==` is false and `!=` true whatever the result; the compared expression is still evaluated.
// How it differs from CUDA: none for results of HIP calls; a value the program itself stores in the variable
// cannot be CUDA's enumerator (it does not compile in HIP). The translator writes porter_unported_status only as an
// operand of == or !=; any other use stays reported.
#ifndef PORTER_UNPORTED_STATUS_H
#define PORTER_UNPORTED_STATUS_H

struct porter_unported_status_t {};
template <class T> constexpr bool operator==(const T&, porter_unported_status_t) { return false; }
template <class T> constexpr bool operator==(porter_unported_status_t, const T&) { return false; }
template <class T> constexpr bool operator!=(const T&, porter_unported_status_t) { return true; }
template <class T> constexpr bool operator!=(porter_unported_status_t, const T&) { return true; }
#define porter_unported_status (porter_unported_status_t{})

#endif

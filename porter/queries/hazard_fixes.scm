; The nodes the safe hazard fixes look at (porter/scan/fixes.py): a subset of hazards.scm, so the translator's
; pass over each file collects only what lane masks, warp arithmetic, shuffle loops and clocks need.

(call_expression function: (_) arguments: (argument_list)) @call

(binary_expression
  operator: ["%" "&" "/" ">>" "<<"]
  right: (_)) @binary

(preproc_def name: (identifier) value: (preproc_arg)) @define

(declaration) @declaration

(for_statement) @for

(function_definition) @function

[(assignment_expression)] @indexed

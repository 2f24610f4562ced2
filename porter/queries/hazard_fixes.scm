; The nodes the safe hazard fixes look at (porter/scan/fixes.py): a subset of hazards.scm, so the translator's
; pass over each file collects only what lane masks, warp arithmetic, shuffle loops and clocks need.

; Calls and the operators of binary expressions are captured as bare nodes and checked in SourceContext._collect
; (a function and an argument_list; a binary_expression's operator with a right operand): a pattern with fields
; keeps one pending match per enclosing node while the query walks a deep left operand, which is quadratic in
; the depth of `a + b + c + ...` and of call chains.
(call_expression) @call

["%" "&" "/" ">>" "<<"] @binary_operator

(preproc_def name: (identifier) value: (preproc_arg)) @define

(declaration) @declaration

(for_statement) @for

(function_definition) @function

[(assignment_expression)] @indexed

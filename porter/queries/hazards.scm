; Nodes the hazard detectors look at (porter/scan/detectors.py dispatches on the capture name).
; One pass over the tree collects them; the detectors then reason over the tree around each node.

(call_expression function: (_) @call.function arguments: (argument_list) @call.args) @call

(binary_expression
  operator: ["%" "&" "/" ">>" "<<"]
  right: (_) @binary.right) @binary

(gnu_asm_expression) @asm

(preproc_include path: (_) @include.path) @include

(preproc_def name: (identifier) @define.name value: (preproc_arg) @define.value) @define

(launch_bounds) @launch_bounds

(declaration) @declaration

(for_statement) @for

(function_definition) @function

(template_type) @template_type

(qualified_identifier) @qualified

[(type_identifier) (identifier)] @name

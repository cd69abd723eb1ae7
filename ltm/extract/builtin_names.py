"""Names of each language's built-in methods and functions: a guess by name alone skips them.

`x.get(k)` where nothing says what `x` is: the only method named `get` in the repository is a poor
guess when every dict, Map or string of the language also has one (on this project a plain dict's
`out.get(...)` became a call to `SpanCache.get`). The resolver still follows such a call when the
receiver is known (`self`, an attribute whose class is known, a class name, an import); only the
repository-wide unique-method guess (0.3) leaves these names alone (`resolve.py`), as the
unique-function guess (0.5) leaves the built-in functions alone.

Python's names come from the interpreter itself; JavaScript's are the own function-valued properties
of the prototypes of its standard built-in types as Node 20 lists them, written out here (regenerate:
`node -e 'for (const t of [Array, String, Map, Set, WeakMap, WeakSet, Object, Promise, Function,
RegExp, Number, Boolean, Symbol, Date, Error]) console.log(Object.getOwnPropertyNames(t.prototype)
.filter(n => typeof Object.getOwnPropertyDescriptor(t.prototype, n).value === "function")
.join(" "))'`).
Go's built-in types (maps, slices, strings) have no methods; its one predeclared interface, `error`, has
`Error()`: `err.Error()` is not the repository's only `Error` method (cobra's `flagCompError.Error`).

The same holds for a bare `open(path)`: a name the file neither defines nor imports is the
language's built-in function when it has one (`*_FUNCTIONS`), not the repository's only top-level
`open` (click's `examples/termui/termui.py`). Python's come from `builtins`; JavaScript's are the
global functions of ECMAScript and of its hosts' timers and loaders, as Node 20 has them; C's are ISO
C's library functions; Go's are its predeclared functions (`len`, `append`, `close`, ...).
"""

from __future__ import annotations

import builtins

_PYTHON_TYPES = (dict, list, set, frozenset, tuple, str, bytes, bytearray, int, float, complex, bool, object)

# methods only (`str.join`, `dict.get`, `object.__init__`), not data attributes (`complex.real`)
PYTHON_METHODS: frozenset[str] = frozenset(
    name for t in _PYTHON_TYPES for name in dir(t) if callable(getattr(t, name)))

JAVASCRIPT_METHODS: frozenset[str] = frozenset((
    "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__", "add", "anchor", "apply",
    "at", "big", "bind", "blink", "bold", "call", "catch", "charAt", "charCodeAt", "clear", "codePointAt",
    "compile", "concat", "constructor", "copyWithin", "delete", "endsWith", "entries", "every", "exec",
    "fill", "filter", "finally", "find", "findIndex", "findLast", "findLastIndex", "fixed", "flat", "flatMap",
    "fontcolor", "fontsize", "forEach", "get", "getDate", "getDay", "getFullYear", "getHours",
    "getMilliseconds", "getMinutes", "getMonth", "getSeconds", "getTime", "getTimezoneOffset", "getUTCDate",
    "getUTCDay", "getUTCFullYear", "getUTCHours", "getUTCMilliseconds", "getUTCMinutes", "getUTCMonth",
    "getUTCSeconds", "getYear", "has", "hasOwnProperty", "includes", "indexOf", "isPrototypeOf",
    "isWellFormed", "italics", "join", "keys", "lastIndexOf", "link", "localeCompare", "map", "match",
    "matchAll", "normalize", "padEnd", "padStart", "pop", "propertyIsEnumerable", "push", "reduce",
    "reduceRight", "repeat", "replace", "replaceAll", "reverse", "search", "set", "setDate", "setFullYear",
    "setHours", "setMilliseconds", "setMinutes", "setMonth", "setSeconds", "setTime", "setUTCDate",
    "setUTCFullYear", "setUTCHours", "setUTCMilliseconds", "setUTCMinutes", "setUTCMonth", "setUTCSeconds",
    "setYear", "shift", "slice", "small", "some", "sort", "splice", "split", "startsWith", "strike", "sub",
    "substr", "substring", "sup", "test", "then", "toDateString", "toExponential", "toFixed", "toGMTString",
    "toISOString", "toJSON", "toLocaleDateString", "toLocaleLowerCase", "toLocaleString",
    "toLocaleTimeString", "toLocaleUpperCase", "toLowerCase", "toPrecision", "toReversed", "toSorted",
    "toSpliced", "toString", "toTimeString", "toUTCString", "toUpperCase", "toWellFormed", "trim", "trimEnd",
    "trimLeft", "trimRight", "trimStart", "unshift", "valueOf", "values", "with",
))

PYTHON_FUNCTIONS: frozenset[str] = frozenset(
    n for n in dir(builtins) if not n.startswith("_") and callable(getattr(builtins, n)))

# what `x = open(p)` or `with open(p) as x` holds is a built-in value (a file, a str, a list), never an
# object of the repository: `x.write()` is not the repository's only `write` (starlette's tests writing
# fixtures were guessed into `UploadFile.write`). The built-in types construct such values; `type`,
# `super` and `object` (and the descriptors) do not, and `getattr`, `next`, `max` return what they are given.
PYTHON_VALUES: frozenset[str] = frozenset(
    {n for n in dir(builtins) if not n.startswith("_") and isinstance(getattr(builtins, n), type)}
    - {"type", "super", "object", "property", "classmethod", "staticmethod"}
    | {"open", "sorted", "len", "repr", "ascii", "format", "bin", "hex", "oct", "chr", "ord", "input"})

JAVASCRIPT_FUNCTIONS: frozenset[str] = frozenset((
    "atob", "btoa", "clearImmediate", "clearInterval", "clearTimeout", "decodeURI", "decodeURIComponent",
    "encodeURI", "encodeURIComponent", "escape", "eval", "fetch", "isFinite", "isNaN", "parseFloat", "parseInt",
    "queueMicrotask", "require", "setImmediate", "setInterval", "setTimeout", "structuredClone", "unescape",
))

# The global objects of JavaScript's hosts (browsers, workers, Node, Deno, Bun) whose methods a call names:
# `console.log(x)`, `document.querySelector(s)`, `caches.open(name)` (hono's cache middleware was guessed into its
# only `open` method, a WebSocket handler's). Names that code often binds itself (`location`, `history`, `self`)
# are left out.
JAVASCRIPT_OBJECTS: frozenset[str] = frozenset((
    "Bun", "Deno", "caches", "chrome", "console", "crypto", "customElements", "document", "globalThis",
    "indexedDB", "localStorage", "navigator", "performance", "process", "sessionStorage", "window",
))

# ISO C's library functions (C11, 7.4-7.29: ctype, locale, math, setjmp, signal, stdio, stdlib, string,
# time): a bare `fclose(f)` that no definition in the file or its includes names is the C library's, not
# the repository's only `fclose` (jq's `src/inject_errors.c`, a shim that wraps libc's for tests)
C_FUNCTIONS: frozenset[str] = frozenset((
    "isalnum", "isalpha", "isblank", "iscntrl", "isdigit", "isgraph", "islower", "isprint", "ispunct", "isspace",
    "isupper", "isxdigit", "tolower", "toupper", "setlocale", "localeconv",
    "acos", "asin", "atan", "atan2", "cos", "sin", "tan", "acosh", "asinh", "atanh", "cosh", "sinh", "tanh", "exp",
    "exp2", "expm1", "frexp", "ilogb", "ldexp", "log", "log10", "log1p", "log2", "logb", "modf", "scalbn",
    "scalbln", "cbrt", "fabs", "hypot", "pow", "sqrt", "erf", "erfc", "lgamma", "tgamma", "ceil", "floor",
    "nearbyint", "rint", "lrint", "llrint", "round", "lround", "llround", "trunc", "fmod", "remainder",
    "remquo", "copysign", "nan", "nextafter", "nexttoward", "fdim", "fmax", "fmin", "fma",
    "longjmp", "setjmp", "signal", "raise",
    "remove", "rename", "tmpfile", "tmpnam", "fclose", "fflush", "fopen", "freopen", "setbuf", "setvbuf",
    "fprintf", "fscanf", "printf", "scanf", "snprintf", "sprintf", "sscanf", "vfprintf", "vfscanf", "vprintf",
    "vscanf", "vsnprintf", "vsprintf", "vsscanf", "fgetc", "fgets", "fputc", "fputs", "getc", "getchar", "putc",
    "putchar", "puts", "ungetc", "fread", "fwrite", "fgetpos", "fseek", "fsetpos", "ftell", "rewind",
    "clearerr", "feof", "ferror", "perror",
    "atof", "atoi", "atol", "atoll", "strtod", "strtof", "strtold", "strtol", "strtoll", "strtoul", "strtoull",
    "rand", "srand", "aligned_alloc", "calloc", "free", "malloc", "realloc", "abort", "atexit", "at_quick_exit",
    "exit", "_Exit", "getenv", "quick_exit", "system", "bsearch", "qsort", "abs", "labs", "llabs", "div", "ldiv",
    "lldiv", "mblen", "mbtowc", "wctomb", "mbstowcs", "wcstombs",
    "memcpy", "memmove", "strcpy", "strncpy", "strcat", "strncat", "memcmp", "strcmp", "strcoll", "strncmp",
    "strxfrm", "memchr", "strchr", "strcspn", "strpbrk", "strrchr", "strspn", "strstr", "strtok", "memset",
    "strerror", "strlen",
    "clock", "difftime", "mktime", "time", "timespec_get", "asctime", "ctime", "gmtime", "localtime", "strftime",
))

# Go's predeclared functions (the Go spec, "Built-in functions"), its predeclared types, which convert when
# called (`string(b)`, `int64(n)`), and the method of its predeclared `error`
GO_FUNCTIONS: frozenset[str] = frozenset((
    "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min", "new",
    "panic", "print", "println", "real", "recover",
    "any", "bool", "byte", "comparable", "complex64", "complex128", "error", "float32", "float64", "int", "int8",
    "int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
))
GO_METHODS: frozenset[str] = frozenset(("Error",))

# PHP's functions of its core and bundled extensions that code calls unqualified (the PHP manual's function
# reference: standard, string, array, math, variable handling, JSON, PCRE, ctype, mbstring, date, filesystem,
# classes and functions, error handling, output control), and the language constructs written as calls
PHP_FUNCTIONS: frozenset[str] = frozenset((
    "isset", "empty", "unset", "eval", "exit", "die", "list", "array", "compact", "extract", "print",
    "strlen", "strtolower", "strtoupper", "ucfirst", "lcfirst", "ucwords", "trim", "ltrim", "rtrim", "str_replace",
    "str_ireplace", "substr", "substr_count", "substr_replace", "strpos", "stripos", "strrpos", "strripos", "strstr",
    "stristr", "strrchr", "str_contains", "str_starts_with", "str_ends_with", "str_pad", "str_repeat", "str_split",
    "strrev", "strcmp", "strcasecmp", "strncmp", "strncasecmp", "strnatcmp", "strnatcasecmp", "strtr", "sprintf",
    "vsprintf", "printf", "vprintf", "fprintf", "number_format", "implode", "explode", "join", "nl2br",
    "htmlspecialchars", "htmlspecialchars_decode", "htmlentities", "html_entity_decode", "strip_tags", "addslashes",
    "stripslashes", "quotemeta", "chr", "ord", "lcg_value", "wordwrap", "chunk_split", "similar_text", "levenshtein",
    "soundex", "metaphone", "md5", "sha1", "crc32", "hash", "hash_hmac", "hash_equals", "hash_algos", "base64_encode",
    "base64_decode", "bin2hex", "hex2bin", "urlencode", "urldecode", "rawurlencode", "rawurldecode",
    "http_build_query", "parse_str", "parse_url", "uniqid", "random_bytes", "random_int", "rand", "mt_rand",
    "mt_srand", "srand", "str_word_count", "strspn", "strcspn", "strpbrk", "count_chars", "nl_langinfo",
    "mb_strlen", "mb_substr", "mb_strtolower", "mb_strtoupper", "mb_strpos", "mb_str_split", "mb_convert_encoding",
    "mb_check_encoding", "mb_internal_encoding", "iconv", "utf8_encode", "utf8_decode",
    "preg_match", "preg_match_all", "preg_replace", "preg_replace_callback", "preg_split", "preg_quote",
    "preg_grep", "preg_last_error", "preg_last_error_msg",
    "count", "sizeof", "in_array", "array_search", "array_keys", "array_values", "array_merge",
    "array_merge_recursive", "array_replace", "array_replace_recursive", "array_combine", "array_flip",
    "array_slice", "array_splice", "array_map", "array_filter", "array_reduce", "array_walk", "array_walk_recursive",
    "array_key_exists", "key_exists", "array_key_first", "array_key_last", "array_shift", "array_unshift",
    "array_push", "array_pop", "array_reverse", "array_unique", "array_diff", "array_diff_key", "array_diff_assoc",
    "array_udiff", "array_intersect", "array_intersect_key", "array_fill", "array_fill_keys", "array_pad",
    "array_chunk", "array_column", "array_count_values", "array_product", "array_sum", "array_rand",
    "array_is_list", "range", "sort", "rsort", "usort", "uasort", "uksort", "asort", "arsort", "ksort", "krsort",
    "natsort", "natcasesort", "shuffle", "current", "key", "next", "prev", "reset", "end", "each",
    "iterator_to_array", "iterator_count", "iterator_apply",
    "abs", "ceil", "floor", "round", "max", "min", "intdiv", "fmod", "pow", "sqrt", "exp", "log", "log10", "pi",
    "is_nan", "is_finite", "is_infinite", "base_convert", "bindec", "decbin", "dechex", "hexdec", "octdec", "decoct",
    "intval", "floatval", "doubleval", "boolval", "strval", "settype", "gettype", "get_debug_type", "var_dump",
    "var_export", "print_r", "debug_zval_refcount", "serialize", "unserialize", "is_array", "is_string", "is_int",
    "is_integer", "is_long", "is_float", "is_double", "is_bool", "is_null", "is_numeric", "is_object",
    "is_callable", "is_iterable", "is_countable", "is_resource", "is_scalar", "json_encode", "json_decode",
    "json_last_error", "json_last_error_msg",
    "ctype_digit", "ctype_alpha", "ctype_alnum", "ctype_upper", "ctype_lower", "ctype_space", "ctype_xdigit",
    "ctype_punct", "time", "microtime", "hrtime", "date", "gmdate", "mktime", "gmmktime", "strtotime", "checkdate",
    "date_default_timezone_get", "date_default_timezone_set", "usleep", "sleep", "time_nanosleep",
    "file_exists", "is_file", "is_dir", "is_link", "is_readable", "is_writable", "is_writeable", "is_executable",
    "file_get_contents", "file_put_contents", "file", "fopen", "fclose", "fread", "fwrite", "fputs", "fgets",
    "fgetc", "feof", "fflush", "fseek", "ftell", "rewind", "ftruncate", "fstat", "stat", "filesize", "filemtime",
    "touch", "unlink", "rename", "copy", "mkdir", "rmdir", "tempnam", "tmpfile", "sys_get_temp_dir", "basename",
    "dirname", "pathinfo", "realpath", "glob", "scandir", "opendir", "readdir", "closedir", "chmod", "stream_get_contents",
    "stream_get_meta_data", "stream_context_create", "stream_select", "stream_set_blocking", "stream_set_timeout",
    "stream_copy_to_stream", "stream_is_local", "stream_wrapper_register", "stream_wrapper_unregister",
    "stream_socket_client", "fsockopen", "getcwd", "chdir",
    "function_exists", "method_exists", "property_exists", "class_exists", "interface_exists", "trait_exists",
    "enum_exists", "get_class", "get_parent_class", "get_called_class", "get_object_vars", "get_class_methods",
    "is_a", "is_subclass_of", "spl_object_hash", "spl_object_id", "spl_autoload_register", "class_implements",
    "class_uses", "call_user_func", "call_user_func_array", "func_get_args", "func_num_args", "func_get_arg",
    "define", "defined", "constant", "ini_get", "ini_set", "set_error_handler", "restore_error_handler",
    "set_exception_handler", "restore_exception_handler", "trigger_error", "user_error", "error_reporting",
    "error_log", "error_get_last", "error_clear_last", "debug_backtrace", "debug_print_backtrace", "assert",
    "ob_start", "ob_get_clean", "ob_get_contents", "ob_end_clean", "ob_end_flush", "ob_get_level", "ob_get_length",
    "ob_flush", "flush", "header", "headers_sent", "headers_list", "header_remove", "http_response_code",
    "setcookie", "getenv", "putenv", "php_sapi_name", "phpversion", "php_uname", "version_compare",
    "extension_loaded", "memory_get_usage", "memory_get_peak_usage", "gc_collect_cycles", "set_time_limit",
    "ignore_user_abort", "register_shutdown_function", "array_key_exists", "fastcgi_finish_request",
    "curl_init", "curl_setopt", "curl_setopt_array", "curl_exec", "curl_close", "curl_error", "curl_errno",
    "curl_getinfo", "curl_multi_init", "curl_multi_add_handle", "curl_multi_remove_handle", "curl_multi_exec",
    "curl_multi_select", "curl_multi_info_read", "curl_multi_close", "curl_reset", "curl_version",
    "curl_multi_setopt", "curl_share_init", "curl_share_setopt", "gethostbyname", "inet_pton", "inet_ntop",
    "filter_var", "escapeshellarg", "proc_open", "exec", "shell_exec", "passthru",
))

# Methods of PHP's built-in classes and interfaces (Throwable, Closure, DateTimeInterface, Iterator,
# ArrayAccess, Countable, IteratorAggregate, JsonSerializable, ArrayObject and the SPL structures,
# Reflection): `$e->getMessage()` on an unknown object is not the repository's only `getMessage`
PHP_METHODS: frozenset[str] = frozenset((
    "getMessage", "getCode", "getPrevious", "getFile", "getLine", "getTrace", "getTraceAsString",
    "bind", "bindTo", "call", "fromCallable", "format", "modify", "getTimestamp", "setTimestamp", "getTimezone",
    "setTimezone", "setDate", "setTime", "diff", "sub", "current", "key", "next", "rewind", "valid",
    "offsetGet", "offsetSet", "offsetExists", "offsetUnset", "getIterator", "jsonSerialize", "getArrayCopy",
    "append", "exchangeArray", "getInnerIterator", "newInstance", "newInstanceArgs", "newInstanceWithoutConstructor",
    "getShortName", "getParameters", "getReturnType", "invoke", "invokeArgs", "isBuiltin", "getAttributes",
    "getDocComment", "setAccessible", "getDeclaringClass", "isPublic", "isStatic", "getNumberOfParameters",
    "enqueue", "dequeue", "push", "pop", "shift", "unshift", "top", "isEmpty", "attach", "detach", "contains",
))

# Ruby's core methods, as Ruby 3.3 lists them (`(Object.instance_methods + Kernel.private_instance_methods +
# Array.instance_methods + Hash.instance_methods + String.instance_methods + Symbol.instance_methods +
# Integer.instance_methods + Float.instance_methods + Range.instance_methods + Proc.instance_methods +
# Enumerable.instance_methods + Exception.instance_methods + IO.instance_methods + Module.instance_methods +
# Class.instance_methods).uniq`),
# written out here since the interpreter is not installed where this runs: `env.key?(k)`, `list.compact`,
# `@app.call(env)` and `klass.new` on a receiver of unknown type are the language's, not sinatra's
# `IndifferentHash#key?` or `Base.new`
RUBY_METHODS: frozenset[str] = frozenset((
    # BasicObject, Object, Kernel
    "!", "!=", "!~", "<=>", "==", "===", "=~", "__id__", "__send__", "class", "clone", "define_singleton_method",
    "display", "dup", "enum_for", "eql?", "equal?", "extend", "freeze", "frozen?", "hash", "inspect",
    "instance_eval", "instance_exec", "instance_of?", "instance_variable_defined?", "instance_variable_get",
    "instance_variable_set", "instance_variables", "is_a?", "itself", "kind_of?", "method", "methods", "nil?",
    "object_id", "public_method", "public_send", "respond_to?", "respond_to_missing?", "send", "singleton_class",
    "singleton_method", "singleton_methods", "tap", "then", "to_enum", "to_s", "yield_self", "method_missing",
    "initialize_copy", "instance_variable_names", "private_methods", "protected_methods", "public_methods",
    # Comparable, Enumerable
    "<", "<=", ">", ">=", "between?", "clamp", "all?", "any?", "chain", "chunk", "chunk_while", "collect",
    "collect_concat", "compact", "count", "cycle", "detect", "drop", "drop_while", "each_cons", "each_entry",
    "each_slice", "each_with_index", "each_with_object", "entries", "filter", "filter_map", "find",
    "find_all", "find_index", "first", "flat_map", "grep", "grep_v", "group_by", "include?", "inject", "lazy",
    "map", "max", "max_by", "member?", "min", "min_by", "minmax", "minmax_by", "none?", "one?", "partition",
    "reduce", "reject", "reverse_each", "select", "slice_after", "slice_before", "slice_when", "sort",
    "sort_by", "sum", "take", "take_while", "tally", "to_a", "to_h", "to_set", "uniq", "zip", "each",
    # Array
    "&", "*", "+", "-", "<<", "[]", "[]=", "|", "append", "assoc", "at", "bsearch", "bsearch_index", "clear",
    "combination", "compact!", "concat", "delete", "delete_at", "delete_if", "difference", "dig", "each_index",
    "empty?", "fetch", "fill", "flatten", "flatten!", "index", "insert", "intersect?", "intersection", "join",
    "keep_if", "last", "length", "map!", "collect!", "pack", "permutation", "pop", "prepend", "product",
    "push", "rassoc", "reject!", "repeated_combination", "replace", "reverse", "reverse!", "rindex", "rotate",
    "rotate!", "sample", "select!", "filter!", "shift", "shuffle", "shuffle!", "size", "slice", "slice!",
    "sort!", "sort_by!", "to_ary", "transpose", "union", "uniq!", "unshift", "values_at",
    # Hash
    "any?", "compare_by_identity", "compare_by_identity?", "default", "default=", "default_proc",
    "default_proc=", "each_key", "each_pair", "each_value", "except", "fetch_values", "filter_map",
    "has_key?", "has_value?", "invert", "keep_if", "key", "key?", "keys", "merge", "merge!", "rehash",
    "store", "to_hash", "to_proc", "transform_keys", "transform_keys!", "transform_values",
    "transform_values!", "update", "value?", "values",
    # String, Symbol
    "%", "+@", "-@", "=~", "ascii_only?", "b", "bytes", "bytesize", "byteslice", "capitalize",
    "capitalize!", "casecmp", "casecmp?", "center", "chars", "chomp", "chomp!", "chop", "chop!", "chr",
    "codepoints", "downcase", "downcase!", "dump", "each_byte", "each_char", "each_grapheme_cluster",
    "each_line", "encode", "encode!", "encoding", "end_with?", "force_encoding", "getbyte", "gsub", "gsub!",
    "hex", "intern", "lines", "ljust", "lstrip", "lstrip!", "match", "match?", "next", "oct", "ord",
    "rjust", "rpartition", "rstrip", "rstrip!", "scan", "scrub", "setbyte", "split", "squeeze",
    "start_with?", "strip", "strip!", "sub", "sub!", "succ", "swapcase", "to_c", "to_f", "to_i", "to_r",
    "to_str", "to_sym", "tr", "tr_s", "unicode_normalize", "unpack", "unpack1", "upcase", "upcase!",
    "upto", "valid_encoding?", "id2name", "name",
    # Integer, Float, Numeric, Range
    "**", "/", "abs", "ceil", "coerce", "digits", "div", "divmod", "downto", "even?", "fdiv", "finite?",
    "floor", "gcd", "infinite?", "integer?", "lcm", "magnitude", "modulo", "nan?", "negative?", "nonzero?",
    "odd?", "positive?", "pred", "round", "step", "times", "truncate", "zero?", "begin", "end",
    "exclude_end?", "cover?",
    # Proc, Method
    "arity", "call", "curry", "lambda?", "parameters", "source_location", "yield", "owner", "receiver",
    "unbind", "bind", "bind_call",
    # Exception
    "backtrace", "backtrace_locations", "cause", "detailed_message", "exception", "full_message", "message",
    "set_backtrace",
    # IO, File
    "binmode", "close", "close_read", "close_write", "closed?", "eof?", "fileno", "flush", "fsync", "getc",
    "gets", "print", "printf", "putc", "puts", "read", "read_nonblock", "readline", "readlines",
    "readpartial", "rewind", "seek", "sync", "sync=", "sysread", "syswrite", "tell", "write", "path",
    # Module, Class
    "alias_method", "allocate", "ancestors", "attr", "attr_accessor", "attr_reader", "attr_writer",
    "class_eval", "class_exec", "class_variable_get", "class_variable_set", "class_variables",
    "const_defined?", "const_get", "const_missing", "const_set", "constants", "define_method", "include",
    "included_modules", "instance_method", "instance_methods", "method_defined?", "module_eval",
    "module_exec", "module_function", "new", "private", "private_class_method", "private_constant",
    "private_instance_methods", "private_method_defined?", "protected", "public", "public_class_method",
    "public_instance_method", "public_method_defined?", "remove_method", "superclass", "undef_method",
))

# Kernel's module functions and the private methods every class body and method sees: a bare `raise`, `puts`
# or `require` that no method of the class, its file or its imports defines is the language's
RUBY_FUNCTIONS: frozenset[str] = frozenset((
    "Array", "Complex", "Float", "Hash", "Integer", "Rational", "String", "__callee__", "__dir__", "__method__",
    "abort", "at_exit", "autoload", "autoload?", "binding", "block_given?", "caller", "caller_locations",
    "catch", "eval", "exec", "exit", "exit!", "fail", "fork", "format", "gets", "global_variables", "lambda",
    "load", "local_variables", "loop", "open", "p", "pp", "print", "printf", "proc", "putc", "puts", "raise",
    "rand", "readline", "readlines", "require", "require_relative", "select", "sleep", "spawn", "sprintf",
    "srand", "syscall", "system", "throw", "trap", "warn", "attr", "attr_accessor", "attr_reader", "attr_writer",
    "alias_method", "define_method", "include", "extend", "prepend", "private", "protected", "public",
    "module_function", "private_constant", "private_class_method", "public_class_method", "freeze",
    "instance_variable_get", "instance_variable_set", "respond_to?", "send", "public_send", "tap", "then",
    "is_a?", "kind_of?", "instance_of?", "nil?", "class", "dup", "clone", "inspect", "to_s", "hash",
    "object_id", "instance_eval", "instance_exec", "class_eval", "method", "methods", "singleton_class",
    "define_singleton_method", "extend", "frozen?", "new", "allocate", "superclass", "ancestors",
))

# Rust: the methods of its prelude's and standard library's everyday types and traits (Option, Result, Vec and
# slices, str and String, char, the integers, Iterator, Clone, ToString, Into, AsRef, PartialEq/Ord, the
# collections, Path and OsStr, fs and io, Rc/Arc/Cell/RefCell/Mutex, channels and threads, Duration), as the
# standard library's documentation lists them: `results.into_iter()` on a Vec, `stdout.lock()` and
# `path.file_name()` are the standard library's, not the repository's only `into_iter`, `lock` or
# `file_name` (fd's `Batch.into_iter`, `Batch.lock`, `DirEntry.file_name`)
RUST_METHODS: frozenset[str] = frozenset((
    # Option and Result
    "is_some", "is_some_and", "is_none", "is_none_or", "as_ref", "as_mut", "as_deref", "as_deref_mut", "expect",
    "unwrap", "unwrap_or", "unwrap_or_else", "unwrap_or_default", "unwrap_unchecked", "map", "map_or",
    "map_or_else", "inspect", "ok_or", "ok_or_else", "and", "and_then", "filter", "or", "or_else", "xor",
    "get_or_insert", "get_or_insert_with", "take", "take_if", "replace", "zip", "unzip", "copied", "cloned",
    "transpose", "flatten", "is_ok", "is_ok_and", "is_err", "is_err_and", "ok", "err", "map_err", "inspect_err",
    "expect_err", "unwrap_err",
    # Vec, slices, arrays
    "capacity", "reserve", "reserve_exact", "shrink_to_fit", "shrink_to", "into_boxed_slice", "truncate",
    "as_slice", "as_mut_slice", "as_ptr", "as_mut_ptr", "set_len", "swap_remove", "insert", "remove", "retain",
    "retain_mut", "dedup", "dedup_by", "dedup_by_key", "push", "pop", "append", "drain", "clear", "len",
    "is_empty", "split_off", "resize", "resize_with", "leak", "extend_from_slice", "extend_from_within", "splice",
    "first", "first_mut", "last", "last_mut", "split_first", "split_last", "get", "get_mut", "get_unchecked",
    "swap", "reverse", "iter", "iter_mut", "windows", "chunks", "chunks_exact", "rchunks", "split_at",
    "split_at_mut", "split", "splitn", "rsplit", "rsplitn", "contains", "starts_with", "ends_with", "strip_prefix",
    "strip_suffix", "binary_search", "binary_search_by", "binary_search_by_key", "sort", "sort_by", "sort_by_key",
    "sort_unstable", "sort_unstable_by", "sort_unstable_by_key", "select_nth_unstable", "rotate_left",
    "rotate_right", "fill", "fill_with", "clone_from_slice", "copy_from_slice", "to_vec", "into_vec", "repeat",
    "concat", "join", "is_sorted", "partition_point",
    # str, String, char
    "is_char_boundary", "as_bytes", "as_bytes_mut", "chars", "char_indices", "bytes", "split_whitespace",
    "split_ascii_whitespace", "lines", "encode_utf16", "find", "rfind", "split_inclusive", "split_terminator",
    "rsplit_terminator", "split_once", "rsplit_once", "match_indices", "rmatch_indices",
    "trim", "trim_start", "trim_end", "trim_matches", "trim_start_matches", "trim_end_matches", "parse",
    "is_ascii", "eq_ignore_ascii_case", "make_ascii_uppercase", "make_ascii_lowercase", "escape_debug",
    "escape_default", "escape_unicode", "replacen", "to_lowercase", "to_uppercase", "to_ascii_uppercase",
    "to_ascii_lowercase", "into_string", "into_boxed_str", "into_bytes", "as_str", "as_mut_str", "push_str",
    "insert_str", "replace_range", "is_alphabetic", "is_numeric", "is_alphanumeric", "is_whitespace",
    "is_uppercase", "is_lowercase", "is_control", "is_digit", "to_digit", "len_utf8", "encode_utf8",
    "is_ascii_digit", "is_ascii_alphabetic", "is_ascii_alphanumeric", "is_ascii_punctuation",
    "is_ascii_whitespace", "is_ascii_uppercase", "is_ascii_lowercase", "is_ascii_hexdigit",
    # integers and floats
    "abs", "pow", "checked_add", "checked_sub", "checked_mul", "checked_div", "saturating_add", "saturating_sub",
    "saturating_mul", "wrapping_add", "wrapping_sub", "wrapping_mul", "overflowing_add", "overflowing_sub",
    "min", "max", "clamp", "signum", "is_positive", "is_negative", "to_be_bytes", "to_le_bytes", "to_ne_bytes",
    "count_ones", "leading_zeros", "trailing_zeros", "rem_euclid", "div_euclid", "is_power_of_two",
    "next_power_of_two", "sqrt", "floor", "ceil", "round", "trunc", "is_nan", "is_finite", "powi", "powf",
    # Iterator, IntoIterator, DoubleEndedIterator, Peekable
    "next", "size_hint", "count", "nth", "step_by", "chain", "for_each", "filter_map", "enumerate", "peekable",
    "skip_while", "take_while", "map_while", "skip", "scan", "flat_map", "fuse", "by_ref", "collect", "partition",
    "try_fold", "try_for_each", "fold", "reduce", "all", "any", "find_map", "position", "rposition", "max_by_key",
    "max_by", "min_by_key", "min_by", "rev", "cycle", "sum", "product", "next_back", "nth_back", "rfold", "peek",
    "next_if", "into_iter",
    # the prelude's traits: Clone, ToString, ToOwned, Into, TryInto, AsRef, Borrow, PartialEq, Ord, Hash, Debug,
    # Display, Deref, Extend
    "clone", "clone_from", "to_string", "to_owned", "into", "try_into", "borrow", "borrow_mut", "eq", "ne", "cmp",
    "partial_cmp", "lt", "le", "gt", "ge", "hash", "fmt", "deref", "deref_mut", "extend",
    # HashMap, HashSet, BTreeMap, the entry API
    "contains_key", "entry", "or_insert", "or_insert_with", "or_default", "and_modify", "keys", "values",
    "values_mut", "into_keys", "into_values", "get_key_value", "first_key_value", "last_key_value", "range",
    "union", "intersection", "difference", "symmetric_difference", "is_subset", "is_superset",
    # Path, PathBuf, OsStr, OsString
    "as_os_str", "to_str", "to_string_lossy", "to_path_buf", "is_absolute", "is_relative", "has_root", "parent",
    "ancestors", "file_name", "file_stem", "extension", "with_file_name", "with_extension", "components",
    "display", "canonicalize", "read_link", "read_dir", "exists", "try_exists", "is_file", "is_dir", "is_symlink",
    "into_path_buf", "set_file_name", "set_extension", "into_os_string", "as_path", "to_os_string",
    "as_encoded_bytes",
    # fs and io: Metadata, fs::DirEntry, File, Read, Write, BufRead, Seek, Stdout
    "metadata", "symlink_metadata", "file_type", "path", "modified", "accessed", "created", "permissions",
    "sync_all", "read", "read_to_end", "read_to_string", "read_exact", "read_line", "write",
    "write_all", "write_fmt", "write_str", "flush", "seek", "lock", "fill_buf", "consume",
    # Rc, Arc, Cell, RefCell, Mutex, RwLock, atomics, OnceCell, LocalKey
    "try_borrow", "try_borrow_mut", "set", "into_inner", "try_lock", "is_poisoned", "downgrade", "upgrade",
    "load", "store", "fetch_add", "fetch_sub", "compare_exchange", "get_or_init", "with", "with_borrow",
    "with_borrow_mut",
    # threads, channels, processes, Duration and Instant
    "send", "recv", "try_recv", "recv_timeout", "try_send", "spawn", "wait", "kill", "output", "status",
    "success", "code", "as_secs", "as_millis", "as_micros", "as_nanos", "as_secs_f64", "subsec_nanos",
    "elapsed", "duration_since", "checked_duration_since",
))
# the prelude's functions and variants called bare, and the standard library's macros (`println!(...)`)
RUST_FUNCTIONS: frozenset[str] = frozenset((
    "drop", "Some", "Ok", "Err", "Box",
    "println", "print", "eprintln", "eprint", "format", "format_args", "write", "writeln", "vec", "assert",
    "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "panic", "unreachable",
    "unimplemented", "todo", "matches", "concat", "stringify", "include", "include_str", "include_bytes", "env",
    "option_env", "cfg", "line", "column", "file", "module_path", "dbg", "thread_local", "compile_error",
))
# Kotlin's standard library as code calls it bare (the kotlin, kotlin.collections, kotlin.text, kotlin.io,
# kotlin.sequences and kotlin.comparisons packages are imported into every file): collection and sequence
# builders, the scope functions (`run { }`, `with(x) { }`), preconditions, `lazy`, `repeat`, `println`
KOTLIN_FUNCTIONS: frozenset[str] = frozenset((
    "listOf", "listOfNotNull", "mutableListOf", "arrayListOf", "emptyList", "setOf", "setOfNotNull", "mutableSetOf",
    "hashSetOf", "linkedSetOf", "sortedSetOf", "emptySet", "mapOf", "mutableMapOf", "hashMapOf", "linkedMapOf",
    "sortedMapOf", "emptyMap", "arrayOf", "arrayOfNulls", "emptyArray", "intArrayOf", "longArrayOf", "byteArrayOf",
    "charArrayOf", "shortArrayOf", "floatArrayOf", "doubleArrayOf", "booleanArrayOf", "sequenceOf", "emptySequence",
    "generateSequence", "sequence", "iterator", "buildList", "buildSet", "buildMap", "buildString", "List",
    "MutableList", "Array", "IntArray", "LongArray", "ByteArray", "CharArray", "BooleanArray", "DoubleArray",
    "FloatArray", "ShortArray", "Pair", "Triple", "Regex", "StringBuilder", "Result", "Any", "lazyOf",
    "run", "with", "apply", "also", "let", "takeIf", "takeUnless", "repeat", "lazy", "require", "requireNotNull",
    "check", "checkNotNull", "error", "TODO", "assert", "println", "print", "readLine", "readln", "readlnOrNull",
    "maxOf", "minOf", "compareBy", "compareByDescending", "compareValues", "compareValuesBy", "naturalOrder",
    "reverseOrder", "nullsFirst", "nullsLast", "runCatching", "synchronized", "suspend", "enumValues", "enumValueOf",
    "arrayOf", "lazy", "emptyList", "to", "until", "downTo", "step", "also", "use", "Exception",
    "IllegalStateException", "IllegalArgumentException", "UnsupportedOperationException", "NullPointerException",
    "IndexOutOfBoundsException", "NoSuchElementException", "AssertionError", "RuntimeException", "Throwable",
))
# Methods of Kotlin's built-in types and the standard library's extensions on them (Any, String and CharSequence,
# the collections, sequences, arrays, numbers, Result, the scope functions): `x.map { }` on an unknown object
# is not the repository's only `map`
KOTLIN_METHODS: frozenset[str] = frozenset((
    "toString", "equals", "hashCode", "let", "run", "apply", "also", "takeIf", "takeUnless", "use", "to",
    "length", "get", "set", "plus", "minus", "times", "div", "rem", "compareTo", "contains", "containsKey",
    "containsValue", "isEmpty", "isNotEmpty", "isNullOrEmpty", "isBlank", "isNotBlank", "isNullOrBlank", "orEmpty",
    "size", "first", "firstOrNull", "last", "lastOrNull", "single", "singleOrNull", "getOrNull", "getOrElse",
    "getOrDefault", "getOrPut", "elementAt", "indexOf", "lastIndexOf", "indexOfFirst", "indexOfLast", "find",
    "findLast", "map", "mapNotNull", "mapIndexed", "mapIndexedNotNull", "mapKeys", "mapValues", "mapTo", "flatMap",
    "flatten", "filter", "filterNot", "filterNotNull", "filterIsInstance", "filterIndexed", "filterKeys",
    "filterValues", "forEach", "forEachIndexed", "onEach", "any", "all", "none", "count", "sum", "sumOf", "average",
    "max", "min", "maxOf", "minOf", "maxByOrNull", "minByOrNull", "maxBy", "minBy", "maxOrNull", "minOrNull",
    "fold", "foldIndexed", "reduce", "reduceOrNull", "groupBy", "groupingBy", "associate", "associateBy",
    "associateWith", "partition", "zip", "zipWithNext", "chunked", "windowed", "distinct", "distinctBy", "sorted",
    "sortedBy", "sortedByDescending", "sortedDescending", "sortedWith", "sort", "sortBy", "sortWith", "reversed",
    "reverse", "shuffled", "take", "takeLast", "takeWhile", "drop", "dropLast", "dropWhile", "slice", "subList",
    "toList", "toMutableList", "toSet", "toMutableSet", "toHashSet", "toSortedSet", "toMap", "toMutableMap",
    "toTypedArray", "toIntArray", "asList", "asSequence", "asIterable", "iterator", "hasNext", "next", "joinToString",
    "joinTo", "withIndex", "indices", "add", "addAll", "remove", "removeAll", "removeAt", "removeIf", "retainAll",
    "clear", "put", "putAll", "putIfAbsent", "computeIfAbsent", "entries", "keys", "values", "plusAssign",
    "minusAssign", "ifEmpty", "orEmpty", "requireNoNulls", "copyOf", "copyOfRange", "fill",
    "substring", "substringBefore", "substringAfter", "substringBeforeLast", "substringAfterLast", "startsWith",
    "endsWith", "trim", "trimStart", "trimEnd", "trimIndent", "trimMargin", "padStart", "padEnd", "split", "lines",
    "replace", "replaceFirst", "lowercase", "uppercase", "capitalize", "decapitalize", "toLowerCase", "toUpperCase",
    "format", "repeat", "toInt", "toIntOrNull", "toLong", "toLongOrNull", "toDouble", "toDoubleOrNull", "toFloat",
    "toShort", "toByte", "toChar", "toBigDecimal", "toBigInteger", "toBoolean", "toRegex", "toCharArray",
    "toByteArray", "encodeToByteArray", "decodeToString", "matches", "matchEntire", "removePrefix",
    "removeSuffix", "removeSurrounding", "ifBlank", "append", "appendLine", "insert", "setLength", "chars",
    "coerceAtLeast", "coerceAtMost", "coerceIn", "rangeTo", "until", "downTo", "step", "inc", "dec", "unaryMinus",
    "and", "or", "xor", "shl", "shr", "ushr", "inv", "isNaN", "roundToInt", "roundToLong", "absoluteValue",
    "getOrThrow", "onSuccess", "onFailure", "exceptionOrNull", "isSuccess", "isFailure", "recover", "invoke",
    "component1", "component2", "component3", "copy", "javaClass", "java", "kotlin", "simpleName",
    "qualifiedName", "cancel", "close", "await", "join", "launch", "async", "emit", "collect", "first",
))

# Swift: the global functions of its standard library (and Foundation's and Dispatch's most used), and the methods
# of its standard types (Array, Dictionary, Set, String, Optional, Sequence and Collection, Result, Task) and of
# Foundation's Data, URL, Date, NSObject and JSON coders, written out here from Apple's documentation: `items.append(x)`
# on an array the resolver cannot type is never the repository's only `append`, nor `print(x)` its only `print`.
SWIFT_FUNCTIONS: frozenset[str] = frozenset((
    "print", "debugPrint", "dump", "assert", "assertionFailure", "precondition", "preconditionFailure",
    "fatalError", "min", "max", "abs", "zip", "stride", "sequence", "repeatElement", "swap", "type",
    "withUnsafePointer", "withUnsafeMutablePointer", "withUnsafeBytes", "withUnsafeMutableBytes",
    "withExtendedLifetime", "withoutActuallyEscaping", "withTaskGroup", "withThrowingTaskGroup",
    "withCheckedContinuation", "withCheckedThrowingContinuation", "withUnsafeContinuation",
    "withUnsafeThrowingContinuation", "withTaskCancellationHandler", "unsafeBitCast", "unsafeDowncast",
    "numericCast", "readLine", "isKnownUniquelyReferenced", "autoreleasepool", "NSLocalizedString",
    "String", "Int", "Double", "Float", "Bool", "Array", "Dictionary", "Set", "Character", "Optional",
    "Data", "URL", "Date", "UUID", "Result", "Task", "Error", "objc_getAssociatedObject",
    "objc_setAssociatedObject", "arc4random", "arc4random_uniform", "floor", "ceil", "round", "sqrt", "pow",
    "XCTAssert", "XCTAssertEqual", "XCTAssertNotEqual", "XCTAssertTrue", "XCTAssertFalse", "XCTAssertNil",
    "XCTAssertNotNil", "XCTFail", "XCTUnwrap", "XCTAssertThrowsError", "XCTAssertNoThrow",
    "XCTAssertGreaterThan", "XCTAssertLessThan", "XCTAssertGreaterThanOrEqual", "XCTAssertLessThanOrEqual",
    "XCTAssertIdentical", "XCTAssertNotIdentical", "XCTSkip", "XCTSkipIf", "XCTSkipUnless", "XCTExpectFailure",
    "expectation", "wait", "fulfillment", "measure", "addTeardownBlock",
    "dispatchPrecondition", "DispatchQueue", "DispatchGroup", "DispatchSemaphore", "DispatchWorkItem",
    "JSONDecoder", "JSONEncoder", "PropertyListDecoder", "PropertyListEncoder", "NSLock", "NSRecursiveLock",
    "NSError", "URLRequest", "URLComponents", "URLQueryItem", "URLSession", "URLSessionConfiguration",
    "HTTPURLResponse", "InputStream", "OutputStream", "FileManager", "NotificationCenter", "Notification",
    "OperationQueue", "AsyncStream", "AsyncThrowingStream", "CheckedContinuation", "ObjectIdentifier",
    "Mirror", "KeyPath", "Int64", "UInt64", "UInt8", "UInt16", "UInt32", "Int32", "CGFloat", "TimeInterval",
))

SWIFT_METHODS: frozenset[str] = frozenset((
    # Sequence, Collection, Array, Set, Dictionary
    "map", "flatMap", "compactMap", "filter", "reduce", "forEach", "contains", "first", "last", "firstIndex",
    "lastIndex", "min", "max", "sorted", "sort", "reversed", "reverse", "enumerated", "joined", "split", "prefix",
    "suffix", "dropFirst", "dropLast", "drop", "allSatisfy", "elementsEqual", "starts", "lazy", "shuffled",
    "shuffle", "append", "insert", "remove", "removeAll", "removeFirst", "removeLast", "removeSubrange",
    "removeValue", "popLast", "popFirst", "replaceSubrange", "index", "distance", "formIndex", "swapAt",
    "partition", "union", "intersection", "subtracting", "symmetricDifference", "formUnion", "formIntersection",
    "subtract", "isSubset", "isSuperset", "isDisjoint", "updateValue", "merge", "merging", "mapValues",
    "compactMapValues", "grouping", "makeIterator", "next", "withContiguousStorageIfAvailable", "reserveCapacity",
    "count", "isEmpty", "randomElement", "filterMap", "zip",
    # String, Character, Substring
    "hasPrefix", "hasSuffix", "lowercased", "uppercased", "capitalized", "trimmingCharacters", "components",
    "replacingOccurrences", "range", "padding", "addingPercentEncoding", "removingPercentEncoding",
    "data", "cString", "utf8", "utf16", "write", "appending", "appendingFormat", "localizedDescription",
    "caseInsensitiveCompare", "compare", "localizedCaseInsensitiveCompare", "isNumber", "isLetter",
    # Optional, Result, Error, Task, async sequences
    "map", "flatMap", "get", "mapError", "flatMapError", "cancel", "value", "result", "yield", "finish",
    "resume", "sleep", "checkCancellation",
    # Hashable, Equatable, Codable, CustomStringConvertible
    "hash", "hash", "encode", "decode", "container", "nestedContainer", "singleValueContainer", "unkeyedContainer",
    "superEncoder", "superDecoder", "description", "debugDescription", "combine", "finalize",
    # Foundation: Data, URL, Date, NSObject, JSON and property-list coders, notification center, dispatch
    "appendingPathComponent", "appendingPathExtension", "deletingLastPathComponent", "deletingPathExtension",
    "resolvingSymlinksInPath", "standardized", "absoluteString", "addingTimeInterval", "timeIntervalSince",
    "base64EncodedString", "base64EncodedData", "subdata", "copyBytes", "withUnsafeBytes", "isEqual", "copy",
    "mutableCopy", "perform", "responds", "setValue", "value", "jsonObject", "data", "post", "addObserver",
    "removeObserver", "async", "sync", "asyncAfter", "notify", "enter", "leave", "wait", "signal", "lock",
    "unlock", "withLock", "fileExists", "createDirectory", "removeItem", "contentsOfDirectory", "string",
    "date", "object", "set", "synchronize", "invalidate", "fire", "add", "addOperation", "cancelAllOperations",
    "waitUntilAllOperationsAreFinished", "dataTask", "uploadTask", "downloadTask", "streamTask", "webSocketTask",
    "finishTasksAndInvalidate", "invalidateAndCancel", "getAllTasks", "getTasksWithCompletionHandler",
    "suspend", "setValue", "addValue", "value", "allHTTPHeaderFields", "url", "fulfill",
    "isKind", "isMember", "conforms", "doesNotRecognizeSelector", "forwardingTarget", "addingTimeInterval",
    "fill", "stroke", "layoutIfNeeded", "setNeedsLayout", "setNeedsDisplay", "addSubview", "removeFromSuperview",
    "present", "dismiss", "pushViewController", "popViewController", "reloadData", "register",
    "dequeueReusableCell", "addTarget", "setTitle", "setImage", "sizeToFit",
))

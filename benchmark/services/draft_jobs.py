"""What the LLM jobs on a project's drafts share: a model under test's endpoint and engine
settings around ``job_execute`` (rewriting seeds, reference models' answers)."""

from collections.abc import Callable

from benchmark.llm.client import Endpoint
from benchmark.llm.credentials import base_url_resolve
from benchmark.llm.engine import EngineConfig, Interpret, Reask, Unit
from benchmark.llm.progress import Progress
from benchmark.models import LLMRun, ModelUnderTest
from benchmark.services.llm_jobs import (
    EngineOptions,
    LLMJobConfigError,
    RunOutcome,
    RunStore,
    engine_price,
    job_execute,
    request_parameters,
)


def model_job_execute(
    *,
    run: LLMRun,
    model: ModelUnderTest,
    options: EngineOptions,
    template_version: str,
    units: list[Unit],
    total: int,
    store_factory: Callable[..., RunStore],
    interpret: Interpret,
    reask: Reask,
    on_progress: Callable[[Progress], None] | None,
) -> RunOutcome:
    """Run ``units`` (what is left of ``total``) against ``model``'s endpoint for ``run``."""
    base_url = base_url_resolve(explicit=options.base_url, stored=model.base_url)
    if not base_url:
        raise LLMJobConfigError(
            f"model {model.name!r} has no base URL; pass --base-url or set OPENAI_BASE_URL"
        )
    endpoint_model = model.endpoint_model or model.name
    return job_execute(
        run=run,
        endpoint=Endpoint(
            base_url=base_url,
            model=endpoint_model,
            api_key=options.api_key,
            parameters=request_parameters(stored=model.parameters, run=run),
            timeout=options.timeout,
        ),
        config=EngineConfig(
            template_version=template_version,
            concurrency=options.concurrency,
            max_reasks=options.max_reasks,
            max_cost=options.max_cost,
            price=engine_price(endpoint_model, model.parameters, options),
            force=options.force,
        ),
        options=options,
        units=units,
        counts={"total": total, "done": total - len(units), "errors": 0},
        store_factory=store_factory,
        interpret=interpret,
        reask=reask,
        on_progress=on_progress,
    )

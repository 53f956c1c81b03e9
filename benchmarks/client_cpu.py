"""The chat client's own CPU per request: what one request costs the engine's event loop.

    PYTHONPATH=<tree> python benchmarks/client_cpu.py [--requests 1500] [--concurrency 32]

Sends ``--requests`` chat requests, ``--concurrency`` at a time, through ``ChatClient`` (an
in-process limiter far above the rate reached) to our fake endpoint running in a subprocess
(0.05 s latency, so connections go idle and busy as in a run), and prints this process's CPU
time per request. The prompt is a judge-sized Chinese text (the token estimate's share).
"""

import argparse
import asyncio
import subprocess
import sys
import time

FAKE = (
    "import time\n"
    "from benchmark.llm.fake_server import FakeLLM\n"
    "fake = FakeLLM(latency=0.05).start()\n"
    "print(fake.base_url, flush=True)\n"
    "time.sleep(3600)\n"
)


async def send_all(url: str, *, requests: int, concurrency: int) -> tuple[float, float]:
    from benchmark.llm.client import ChatClient, Endpoint
    from benchmark.llm.ratelimit import LocalLimiter

    client = ChatClient(
        Endpoint(url, "m"),
        concurrency=concurrency,
        limiter=LocalLimiter(rpm=1_000_000, tpm=None),
    )
    prompt = "请逐条判断：AI对用户内心感受或状态进行开放式提问，如询问用户内心的具体感觉。\n" * 60
    slots = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with slots:
            await client.complete([{"role": "user", "content": f"{prompt}{i}"}])

    wall, cpu = time.monotonic(), time.process_time()
    try:
        await asyncio.gather(*(one(i) for i in range(requests)))
    finally:
        await client.close()
    return time.monotonic() - wall, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1500)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    fake = subprocess.Popen([sys.executable, "-c", FAKE], stdout=subprocess.PIPE, text=True)
    try:
        url = fake.stdout.readline().strip()
        wall, cpu = asyncio.run(send_all(url, requests=args.requests, concurrency=args.concurrency))
    finally:
        fake.terminate()
        fake.wait()
    print(
        f"{args.requests} requests, concurrency {args.concurrency}: wall {wall:.2f} s, "
        f"CPU {cpu:.2f} s, {1000 * cpu / args.requests:.2f} ms of CPU per request"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

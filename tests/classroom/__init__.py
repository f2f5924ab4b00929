def run_coroutine(coro):
    """``asyncio.run(coro)`` in a thread of its own.

    A test run that holds a Playwright browser (the session-wide ``chromium``
    fixture) keeps an event loop running in the main thread, where
    ``asyncio.run`` refuses to start another.
    """
    import asyncio
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()

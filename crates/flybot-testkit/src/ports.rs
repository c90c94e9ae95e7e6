//! A free loopback port for a server the kit runs as another process
//! (Synapse, the model server), which binds it itself: the port is free
//! when this answers, not promised, so such a server checks that it
//! bound the port itself; and the HTTP client the kit reaches them with.

/// A loopback port no socket holds at the moment of asking.
pub(crate) fn free_loopback_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// An HTTP client for the servers the kit runs, each answer within 5 s.
pub(crate) fn loopback_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(5))
        .build()
        .expect("an HTTP client")
}

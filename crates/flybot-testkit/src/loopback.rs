//! An axum app served on a free loopback port from its own thread and
//! runtime, so a test on a paused clock does not pause it; the server
//! stops when the handle is dropped. The fakes of the kit (the mock model,
//! the scripted provider, the third-party API fakes) all stand on it.

use std::net::SocketAddr;
use tokio::sync::oneshot;

/// A running loopback server.
pub struct Loopback {
    pub address: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
}

impl Loopback {
    /// Serves `app` until the handle is dropped.
    pub fn serve(app: axum::Router) -> Loopback {
        let (address_tx, address_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                address_tx.send(listener.local_addr().unwrap()).unwrap();
                axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await
                    .unwrap();
            });
        });
        Loopback {
            address: address_rx.recv().unwrap(),
            stop: Some(stop),
        }
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

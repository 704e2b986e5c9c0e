import Hummingbird

/// The service worker that shows Web Push notices with the ticket's page closed (`GET /push-worker.js`, scope
/// `/`): each push is the JSON ``PushNotices/message(_:code:store:page:clock:_:)`` makes — a notification with
/// its title and text, one per ticket (its tag: a later notice replaces the one shown); a tap opens the
/// ticket's page (only a page of this site), or focuses the tab that shows it.
enum PushWorker {
    static let path = "push-worker.js"

    static let text = #"""
        self.addEventListener('push',function(e){
          var m={};try{m=e.data?e.data.json():{}}catch(x){m={body:e.data?e.data.text():''}}
          e.waitUntil(self.registration.showNotification(m.title||'CLup',
            {body:m.body||'',tag:m.tag||'clup',renotify:true,data:{url:m.url||'/'}}));
        });
        self.addEventListener('notificationclick',function(e){
          e.notification.close();
          var url=new URL((e.notification.data&&e.notification.data.url)||'/',self.location.origin);
          if(url.origin!==self.location.origin)url=new URL('/',self.location.origin);
          e.waitUntil(self.clients.matchAll({type:'window',includeUncontrolled:true}).then(function(list){
            for(var i=0;i<list.length;i++)if(list[i].url===url.href&&'focus' in list[i])return list[i].focus();
            return self.clients.openWindow(url.href);
          }));
        });
        """#

    static func register(on router: some RouterMethods<ServerContext>) {
        router.get(RouterPath(path)) { _, _ -> Response in
            Response(
                status: .ok,
                headers: [
                    .contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache",
                    .contentSecurityPolicy: "default-src 'none'",
                    .init("Service-Worker-Allowed")!: "/", .init("X-Content-Type-Options")!: "nosniff",
                ],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        }
    }
}

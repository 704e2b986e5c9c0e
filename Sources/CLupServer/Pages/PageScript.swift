/// The shopper pages' one script, hand-written and inline (no download, no framework). Each page works
/// without it for viewing; the script adds what needs a browser's help, by what the page holds:
///
/// - `[data-take]` buttons take a virtual ticket and `[data-slot]` buttons book a slot, through the same API
///   routes any app calls (the anonymous holder token kept in local storage; the proof of work each costs
///   solved first, a slice at a time so the page stays responsive), then open the ticket's page;
/// - `#mine` lists the tickets this device holds (local storage) that are still live;
/// - `#locate` asks the browser for its position and searches near it;
/// - on a ticket's page (`data-ticket`): live updates from its event stream (EventSource reconnects by
///   itself; the holder's page sends its stream key, which has stream places of its own; a refused stream falls
///   back to asking every 10 s), the cancel button with its confirmation for the device that holds the ticket, and a visible
///   notice — plus a notification where the shopper allowed them — when the ticket is called or two away; the
///   journey form (typed minutes, or worked out from the browser's position, which is never sent) and the
///   leave-by time each status then carries, "leave now" when it comes.
///
/// The API answers errors in English; the page shows its own words for each status (`error.<status>`).
enum PageScript {
    static let text = #"""
        (function(){
        var s=JSON.parse(document.getElementById('strings').textContent),d=document.body.dataset;
        function $(id){return document.getElementById(id)}
        function t(k,n){return (s[k]||k).replace('{n}',n)}
        function waitText(w,lo,hi){var m=Math.ceil(w/60),a=Math.ceil(lo/60),z=Math.ceil(hi/60),
          r=m>0&&typeof lo==='number'&&typeof hi==='number'&&a<z,note=$('range-note');if(note)note.hidden=!r;
          return r?t('minutes_range',m).replace('{lo}',a).replace('{hi}',z):t('minutes',m)}
        function load(){try{return JSON.parse(localStorage.getItem('clup.tickets')||'[]')}catch(e){return[]}}
        function save(l){try{localStorage.setItem('clup.tickets',JSON.stringify(l))}catch(e){}}
        function holder(){try{return localStorage.getItem('clup.holder')}catch(e){return null}}
        function forget(id){save(load().filter(function(x){return x.id!==id}))}
        function over(stage){return stage==='admitted'||stage==='expired'||stage==='cancelled'}
        function say(text){var e=$('error');e.textContent=text;e.hidden=false}
        var K=[0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,0xd807aa98,0x12835b01,
          0x243185be,0x550c7dc3,0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,0xe49b69c1,0xefbe4786,0x0fc19dc6,0x240ca1cc,
          0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,0x983e5152,0xa831c66d,0xb00327c8,0xbf597fc7,0xc6e00bf3,0xd5a79147,
          0x06ca6351,0x14292967,0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,0x81c2c92e,0x92722c85,
          0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,0x19a4c116,0x1e376c08,
          0x2748774c,0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,0x748f82ee,0x78a5636f,0x84c87814,0x8cc70208,
          0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2];
        // The nonce in [from, to) whose SHA-256 of prefix+nonce (one 64-byte block: ≤ 55 bytes) begins with
        // `bits` zero bits (≤ 32), or null.
        function nonce(prefix,bits,from,to){
          var W=new Int32Array(64),m=new Uint8Array(64),n=prefix.length,i,mask=bits>=32?-1:~(-1>>>bits);
          for(i=0;i<n;i++)m[i]=prefix.charCodeAt(i);
          for(var v=from;v<to;v++){
            var x=String(v),L=n+x.length;
            for(i=0;i<x.length;i++)m[n+i]=x.charCodeAt(i);
            m[L]=0x80;for(i=L+1;i<64;i++)m[i]=0;
            for(i=0;i<16;i++)W[i]=m[4*i]<<24|m[4*i+1]<<16|m[4*i+2]<<8|m[4*i+3];
            W[15]=L*8;
            for(i=16;i<64;i++){var p=W[i-15],q=W[i-2];
              W[i]=(((p>>>7|p<<25)^(p>>>18|p<<14)^(p>>>3))+((q>>>17|q<<15)^(q>>>19|q<<13)^(q>>>10))+W[i-7]+W[i-16])|0}
            var a=0x6a09e667,b=0xbb67ae85|0,c=0x3c6ef372,d4=0xa54ff53a|0,e=0x510e527f,f=0x9b05688c|0,g=0x1f83d9ab,h=0x5be0cd19;
            for(i=0;i<64;i++){
              var t1=(h+((e>>>6|e<<26)^(e>>>11|e<<21)^(e>>>25|e<<7))+((e&f)^(~e&g))+K[i]+W[i])|0;
              var t2=(((a>>>2|a<<30)^(a>>>13|a<<19)^(a>>>22|a<<10))+((a&b)^(a&c)^(b&c)))|0;
              h=g;g=f;f=e;e=(d4+t1)|0;d4=c;c=b;b=a;a=(t1+t2)|0}
            if((((a+0x6a09e667)|0)&mask)===0)return x;
          }
          return null;
        }
        // The store's challenge, solved 20,000 tries at a time: the Clup-Work value (null when none is asked).
        function pay(store){
          return fetch('/v1/stores/'+store+'/work',{headers:{'Accept':'application/json'}}).then(function(r){return r.ok?r.json():null})
            .then(function(w){if(!w||!(w.bits>0))return null;var c=w.challenge+'.',from=0;
              return new Promise(function(done){(function slice(){
                var x=nonce(c,w.bits,from,from+20000);if(x!==null)return done(c+x);from+=20000;setTimeout(slice,0)})()})});
        }
        function call(method,url,body,done,topic,store,tries){
          var h={'Accept':'application/json'},token=holder();
          if(token)h['Clup-Holder']=token;
          if(body)h['Content-Type']='application/json';
          return (store?pay(store):Promise.resolve(null)).then(function(work){
            if(work)h['Clup-Work']=work;
            return fetch(url,{method:method,headers:h,body:body?JSON.stringify(body):undefined});
          }).then(function(r){
            return r.json().catch(function(){return{}}).then(function(b){
              if(r.ok)return done(b);
              // The store asked for more work while this one was solved: once more, with a new challenge.
              if(r.status===428&&b.reason==='work'&&!tries)return call(method,url,body,done,topic,store,1);
              say((b.reason&&s['error.'+b.reason])||s['error.'+r.status+(topic||'')]||s['error.'+r.status]||b.error||s['error.other']);
            });
          },function(){say(s['error.network'])});
        }
        function took(b){
          try{if(b.holderToken)localStorage.setItem('clup.holder',b.holderToken)}catch(e){}
          var path='/'+d.segment+'/'+b.qr.slice(d.statusUrl.length);
          var l=load();l.push({id:b.ticket.id.toLowerCase(),code:b.ticket.code,path:path,store:d.storeName||''});save(l);
          location.href=path+d.langQuery;
        }
        function act(button,go){button.addEventListener('click',function(){
          button.disabled=true;$('error').hidden=true;
          go().then(function(){button.disabled=false},function(){button.disabled=false});
        })}
        document.querySelectorAll('[data-take]').forEach(function(b){act(b,function(){
          d.storeName=b.dataset.name;return call('POST','/v1/stores/'+b.dataset.take+'/tickets',null,took,'',b.dataset.take);
        })});
        document.querySelectorAll('[data-slot]').forEach(function(b){act(b,function(){
          var m=$('stay').value,body={slotStart:Number(b.dataset.slot)};
          if(m)body.expectedVisitMinutes=Number(m);
          return call('POST','/v1/stores/'+d.store+'/bookings',body,took,'.book',d.store);
        })});
        var locate=$('locate');
        if(locate&&navigator.geolocation){
          locate.hidden=false;
          locate.addEventListener('click',function(){
            say(s['js.locating']);
            navigator.geolocation.getCurrentPosition(function(p){
              location.href='/?lat='+p.coords.latitude.toFixed(4)+'&lon='+p.coords.longitude.toFixed(4)+d.langQuery.replace('?','&');
            },function(){say(s['error.location'])},{timeout:10000});
          });
        }
        var mine=$('mine');
        if(mine)load().forEach(function(x){
          fetch('/v1/tickets/'+x.id).then(function(r){
            if(r.status===404){forget(x.id);return null}
            return r.ok?r.json():null;
          }).then(function(b){
            if(!b)return;
            if(over(b.stage)){forget(x.id);return}
            var li=document.createElement('li'),a=document.createElement('a');
            a.href=x.path+d.langQuery;a.textContent=b.ticket.code+' — '+x.store+' — '+(s['stage.'+b.stage]||b.stage);
            li.appendChild(a);mine.appendChild(li);$('mine-section').hidden=false;
          },function(){});
        });
        if(!d.ticket)return;
        var stage=$('stage'),ahead=$('ahead'),minutes=$('minutes'),notice=$('notice'),told=d.stage==='called'?'called':'';
        // Notices of what changes while the page is open (a page opened on a call shows it, and does not notify
        // it again: the push did).
        function tell(key,text){
          if(told===key)return;told=key;notice.textContent=text;notice.hidden=false;
          notify(text);
        }
        function notify(text){
          if(window.Notification&&Notification.permission==='granted'){
            try{new Notification(text,{tag:'clup-'+$('code').textContent})}catch(e){}}
        }
        function hm(ms){return new Date(ms).toLocaleTimeString(document.documentElement.lang,{hour:'2-digit',minute:'2-digit'})}
        var last=d.stage;
        function show(b){
          last=b.stage;stage.textContent=s['stage.'+b.stage]||b.stage;stage.className='stage stage-'+b.stage;
          var n=b.peopleAhead;
          ahead.textContent=typeof n==='number'?(n===0?s.ahead_none:(n===1?s.ahead_one:t('ahead_many',n))):'';
          var w=b.estimatedWaitSeconds;$('wait').hidden=typeof w!=='number';if(typeof w!=='number')$('range-note').hidden=true;if(typeof w==='number')minutes.textContent=waitText(w,b.estimatedWaitLowSeconds,b.estimatedWaitHighSeconds);
          if(b.stage==='called'&&b.call>1)tell('called'+b.call,s['js.called_again'].replace('{t}',hm(b.callEndsAt)));
          else if(b.stage==='called')tell('called',s['js.called']);
          else if(b.pause){var p=b.pause,at=p.until?hm(p.until):'';notice.textContent=s[at?'js.paused_until':'js.paused'].replace('{t}',at).replace('{r}',p.reason);notice.hidden=false;told=''}
          else if(b.opensAt&&d.opens&&typeof n==='number'){notice.textContent=s['js.opens'].replace('{t}',d.opens).replace('{n}',n+1);notice.hidden=false;told=''}
          else if(b.stage==='waiting'&&n<=2&&n>0)tell('soon'+n,n===1?s['js.soon_one']:t('js.soon',n));
          else if(b.stage!=='called'){notice.hidden=true;told=''}
          if(over(b.stage)){forget(d.ticket);$('qr').hidden=true;$('cancel-box').hidden=true}
        }
        var mineToo=load().some(function(x){return x.id===d.ticket});
        if(mineToo&&holder()&&!over(d.stage))$('cancel-box').hidden=false;
        $('cancel').addEventListener('click',function(){$('confirm').hidden=false;$('cancel-yes').focus()});
        $('cancel-no').addEventListener('click',function(){$('confirm').hidden=true;$('cancel').focus()});
        act($('cancel-yes'),function(){return call('DELETE','/v1/tickets/'+d.ticket,null,function(b){$('confirm').hidden=true;show(b)},'.cancel')});
        var ask=$('notify');
        if(window.Notification&&Notification.permission==='default'&&!over(d.stage)){
          ask.hidden=false;
          ask.addEventListener('click',function(){Notification.requestPermission().then(function(p){
            ask.hidden=true;if(p==='denied')say(s['js.notify_denied']);else subscribe();
          })});
        }
        // Web Push, once notifications are allowed, for the device that took the ticket: the service worker
        // shows the server's notices with this page closed. Sent again only when the journey changes (the
        // server then starts the ticket's notices afresh).
        function bytes(text){var b=atob(text.replace(/-/g,'+').replace(/_/g,'/')),a=new Uint8Array(b.length);
          for(var i=0;i<b.length;i++)a[i]=b.charCodeAt(i);return a}
        // What this device keeps per ticket (`clup.journeys`, `clup.pushed`, `clup.told`): read whole, one ticket's entry
        // written or (null) removed.
        function stored(name){try{return JSON.parse(localStorage.getItem('clup.'+name)||'{}')}catch(e){return{}}}
        function keep(name,value){var all=stored(name);if(value===null)delete all[d.ticket];else all[d.ticket]=value;
          try{localStorage.setItem('clup.'+name,JSON.stringify(all))}catch(e){}}
        function subscribe(){
          var token=holder();
          if(!token||!mineToo||over(last)||!('serviceWorker' in navigator)||!window.PushManager||
            Notification.permission!=='granted'||stored('pushed')[d.ticket]===(journey||0))return;
          navigator.serviceWorker.register('/push-worker.js',{scope:'/'}).then(function(reg){
            return fetch('/v1/push/key').then(function(r){return r.ok?r.json():Promise.reject()}).then(function(k){
              return reg.pushManager.subscribe({userVisibleOnly:true,applicationServerKey:bytes(k.publicKey)});
            }).then(function(sub){
              var body=sub.toJSON();body.lang=document.documentElement.lang;body.page=location.pathname;
              if(journey)body.journeyMinutes=journey;
              return fetch('/v1/tickets/'+d.ticket+'/push',{method:'PUT',body:JSON.stringify(body),
                headers:{'Content-Type':'application/json','Clup-Holder':token}});
            }).then(function(r){if(r.ok)keep('pushed',journey||0)});
          }).catch(function(){});  // no push service here: the page's own notices stay
        }
        // The journey: typed, or worked out here from the browser's position (which never leaves the page); sent
        // as minutes with every read, so each status says when to leave (`leaveAt`, `leaveNow`).
        var box=$('journey-box'),leave=$('leave'),field=$('journey-minutes'),journey=null,leaving=null,leftTold=false;
        function showLeave(){
          var b=leaving;if(!leave)return;
          // Called: until when the call lasts (the store's window, or the trip's once this device told it).
          if(b&&b.stage==='called'&&typeof b.callEndsAt==='number'){
            var until=s['js.call_until'].replace('{t}',hm(b.callEndsAt));if(leave.textContent!==until)leave.textContent=until;return}
          if(!b||(typeof b.leaveAt!=='number'&&!b.leaveNow)){leave.textContent='';return}
          var now=b.leaveNow||Date.now()>=b.leaveAt,
            text=now?s['js.leave_now']:s['js.leave_at'].replace('{t}',hm(b.leaveAt)).replace('{n}',b.journeyMinutes);
          if(leave.textContent!==text)leave.textContent=text;
          if(now&&!leftTold){leftTold=true;notify(text)}
        }
        setInterval(showLeave,15000);
        // Minutes from (lat, lon) to the store: the straight line × 1.3 for the streets' detours, at 4.5 km/h on
        // foot, 15 by bike, 25 by car and 5 minutes more to park (docs/web-app.md).
        function trip(lat,lon,mode){
          var r=Math.PI/180,a=lat*r,b=Number(box.dataset.lat)*r,
            h=Math.pow(Math.sin((b-a)/2),2)+Math.cos(a)*Math.cos(b)*Math.pow(Math.sin((Number(box.dataset.lon)-lon)*r/2),2),
            km=2*6371*Math.asin(Math.min(1,Math.sqrt(h)))*1.3,speed={foot:4.5,bike:15,car:25}[mode];
          return Math.min(240,Math.max(1,Math.ceil(km/speed*60+(mode==='car'?5:0))));
        }
        // The holder's device tells the server its journey too, so that once called the ticket's window reaches
        // the trip (`PUT .../journey`, docs/web-app.md); each value once (`clup.told`), a refusal left unsaid.
        function sendJourney(){
          var token=holder();if(!journey||!token||!mineToo||over(last)||stored('told')[d.ticket]===journey)return;
          var m=journey;
          fetch('/v1/tickets/'+d.ticket+'/journey',{method:'PUT',body:JSON.stringify({minutes:m}),
            headers:{'Content-Type':'application/json','Clup-Holder':token}})
            .then(function(r){if(r.ok)keep('told',m)},function(){});
        }
        function setJourney(m){
          journey=m;leftTold=false;keep('journeys',m);field.value=m;$('error').hidden=true;follow();subscribe();sendJourney();
        }
        if(box){
          var given=Number(field.value);journey=given>=1?given:(stored('journeys')[d.ticket]||null);
          if(journey){field.value=journey;sendJourney()}
          $('journey').addEventListener('submit',function(e){
            e.preventDefault();var m=Number(field.value);
            if(!(m>=1&&m<=240&&Math.floor(m)===m))return say(s['error.journey']);
            setJourney(m);
          });
          var modes=$('journey-modes');
          if(navigator.geolocation){modes.hidden=false;
            modes.querySelectorAll('[data-mode]').forEach(function(b){b.addEventListener('click',function(){
              navigator.geolocation.getCurrentPosition(function(p){setJourney(trip(p.coords.latitude,p.coords.longitude,b.dataset.mode))},
                function(){say(s['error.location'])},{timeout:10000,maximumAge:60000});
            })});
          }
        }
        function followed(b){
          show(b);leaving=b;showLeave();
          if(box&&b.stage!=='waiting'&&b.stage!=='booked'&&!(b.stage==='called'&&b.ticket.kind==='app'))box.hidden=true;
          if(over(b.stage)){keep('journeys',null);keep('pushed',null);keep('told',null)}
        }
        function withJourney(url){return journey?url+(url.indexOf('?')<0?'?':'&')+'journeyMinutes='+journey:url}
        var polling=null,events=null,key=null,started=false;
        function fetchStatus(){
          return fetch(withJourney('/v1/tickets/'+d.ticket),{headers:{'Accept':'application/json'}}).then(function(r){return r.ok?r.json():null})
            .then(function(b){if(b){followed(b);if(over(b.stage)&&polling)clearInterval(polling)}},function(){});
        }
        function poll(){if(polling)return;polling=setInterval(fetchStatus,10000)}
        function listen(){
          if(events)events.close();
          var mine=new EventSource(withJourney('/v1/tickets/'+d.ticket+'/events'+(key?'?key='+encodeURIComponent(key):'')));
          events=mine;
          mine.addEventListener('status',function(e){var b=JSON.parse(e.data);followed(b);if(over(b.stage))mine.close()});
          // A stream refused (too many open on this ticket) or gone for good: the page asks every 10 s instead.
          mine.addEventListener('error',function(){if(mine===events&&mine.readyState===2&&!over(last))poll()});
        }
        // A new journey: the stream again with it (its first event comes at once), or one read now when asking.
        function follow(){if(over(last))return;if(polling||!window.EventSource)fetchStatus();else if(started)listen()}
        window.addEventListener('pagehide',function(){if(events)events.close()});
        if(window.Notification)subscribe();
        function begin(k){key=k;started=true;listen()}
        if(!window.EventSource){if(!over(last)){if(journey)fetchStatus();poll()}return}
        // The holder's stream key (asked with its token in a header): the token itself never goes in a URL.
        var token=mineToo&&holder();
        if(!token)return begin(null);
        fetch('/v1/tickets/'+d.ticket,{headers:{'Accept':'application/json','Clup-Holder':token}})
          .then(function(r){return r.ok?r.json():{}}).then(function(b){begin(b.streamKey)},function(){begin(null)});
        })();
        """#
}

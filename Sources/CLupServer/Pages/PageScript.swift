/// The shopper pages' one script, hand-written and inline (no download, no framework). Each page works
/// without it for viewing; the script adds what needs a browser's help, by what the page holds:
///
/// - `[data-take]` buttons take a virtual ticket and `[data-slot]` buttons book a slot, through the same API
///   routes any app calls (the anonymous holder token kept in local storage), then open the ticket's page;
/// - `#mine` lists the tickets this device holds (local storage) that are still live;
/// - `#locate` asks the browser for its position and searches near it;
/// - on a ticket's page (`data-ticket`): live updates from its event stream (EventSource reconnects by
///   itself; the holder's page sends its token, which has stream places of its own; a refused stream falls
///   back to asking every 10 s), the cancel button with its confirmation for the device that holds the ticket, and a visible
///   notice — plus a notification where the shopper allowed them — when the ticket is called or two away.
///
/// The API answers errors in English; the page shows its own words for each status (`error.<status>`).
enum PageScript {
    static let text = #"""
        (function(){
        var s=JSON.parse(document.getElementById('strings').textContent),d=document.body.dataset;
        function $(id){return document.getElementById(id)}
        function t(k,n){return (s[k]||k).replace('{n}',n)}
        function waitText(w,lo,hi){var m=Math.ceil(w/60),a=Math.ceil(lo/60),z=Math.ceil(hi/60);
          return m>0&&typeof lo==='number'&&typeof hi==='number'&&a<z?t('minutes_range',m).replace('{lo}',a).replace('{hi}',z):t('minutes',m)}
        function load(){try{return JSON.parse(localStorage.getItem('clup.tickets')||'[]')}catch(e){return[]}}
        function save(l){try{localStorage.setItem('clup.tickets',JSON.stringify(l))}catch(e){}}
        function holder(){try{return localStorage.getItem('clup.holder')}catch(e){return null}}
        function forget(id){save(load().filter(function(x){return x.id!==id}))}
        function over(stage){return stage==='admitted'||stage==='expired'||stage==='cancelled'}
        function say(text){var e=$('error');e.textContent=text;e.hidden=false}
        function call(method,url,body,done,topic){
          var h={'Accept':'application/json'},token=holder();
          if(token)h['Clup-Holder']=token;
          if(body)h['Content-Type']='application/json';
          return fetch(url,{method:method,headers:h,body:body?JSON.stringify(body):undefined}).then(function(r){
            return r.json().catch(function(){return{}}).then(function(b){
              if(r.ok)return done(b);
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
          d.storeName=b.dataset.name;return call('POST','/v1/stores/'+b.dataset.take+'/tickets',null,took);
        })});
        document.querySelectorAll('[data-slot]').forEach(function(b){act(b,function(){
          var m=$('stay').value,body={slotStart:Number(b.dataset.slot)};
          if(m)body.expectedVisitMinutes=Number(m);
          return call('POST','/v1/stores/'+d.store+'/bookings',body,took,'.book');
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
        var stage=$('stage'),ahead=$('ahead'),minutes=$('minutes'),notice=$('notice'),told='';
        function tell(key,text){
          if(told===key)return;told=key;notice.textContent=text;notice.hidden=false;
          if(window.Notification&&Notification.permission==='granted'){try{new Notification(text)}catch(e){}}
        }
        var last=d.stage;
        function show(b){
          last=b.stage;stage.textContent=s['stage.'+b.stage]||b.stage;stage.className='stage stage-'+b.stage;
          var n=b.peopleAhead;
          ahead.textContent=typeof n==='number'?(n===0?s.ahead_none:(n===1?s.ahead_one:t('ahead_many',n))):'';
          var w=b.estimatedWaitSeconds;$('wait').hidden=typeof w!=='number';if(typeof w==='number')minutes.textContent=waitText(w,b.estimatedWaitLowSeconds,b.estimatedWaitHighSeconds);
          if(b.stage==='called')tell('called',s['js.called']);
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
            ask.hidden=true;if(p==='denied')say(s['js.notify_denied']);
          })});
        }
        var polling=null;
        function poll(){if(polling)return;polling=setInterval(function(){
          fetch('/v1/tickets/'+d.ticket,{headers:{'Accept':'application/json'}}).then(function(r){return r.ok?r.json():null})
            .then(function(b){if(b){show(b);if(over(b.stage))clearInterval(polling)}},function(){});
        },10000)}
        if(!window.EventSource){if(!over(last))poll();return}
        var token=mineToo&&holder();
        var events=new EventSource('/v1/tickets/'+d.ticket+'/events'+(token?'?holder='+encodeURIComponent(token):''));
        window.addEventListener('pagehide',function(){events.close()});
        events.addEventListener('status',function(e){var b=JSON.parse(e.data);show(b);if(over(b.stage))events.close()});
        // A stream refused (too many open on this ticket) or gone for good: the page asks every 10 s instead.
        events.addEventListener('error',function(){if(events.readyState===2&&!over(last))poll()});
        })();
        """#
}
